import OpenStoreCore

extension CompilerState {
    /// The columns a compiled fetch selects, by output:
    ///
    /// - `.keys`: `t0.Z_PK, t0.Z_ENT` — object IDs only (object-ID results,
    ///   `includesPropertyValues = false`, the first pass of `fetchBatchSize`); for a table of
    ///   one entity, `t0.Z_PK` alone: every row is that entity's (`SQLKeyReader` reads no second
    ///   column then), and the database reads the key alone (SQLite reads `Z_PK` from the row's
    ///   key, without decoding the row);
    /// - `.rows`: `t0.Z_PK, t0.Z_ENT, t0.Z_OPT` and every column of the table (on SQLite from
    ///   the last, and the number in place of `Z_ENT` again for a table of one entity: see
    ///   `SQLRowDecoder.columns(of:layout:alias:dialect:)`), the columns `SQLRowDecoder` reads by
    ///   index, so that rows come back from this one statement.
    ///
    /// Counts and dictionaries build their own select lists.
    func selectList(for output: FetchPlan.Output, table: AppleSQLTable) -> String {
        if case .rows = output { return SQLRowDecoder.columns(of: table, layout: layout, alias: "t0", dialect: dialect) }
        return table.soleEntityID == nil ? "t0.Z_PK, t0.Z_ENT" : "t0.Z_PK"
    }
}
