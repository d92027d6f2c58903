import Testing

extension Trait where Self == ConditionTrait {
    /// Runs a suite or test when a PostgreSQL test server is named, or under CI (where it fails
    /// without one); skips it otherwise with `PostgresTestServer.skipMessage`.
    ///
    /// ```swift
    /// @Suite(.postgreSQLServer) struct PostgreSQLValueTests { … }
    /// ```
    public static var postgreSQLServer: Self {
        .enabled(if: PostgresTestServer.isEnabled, Comment(rawValue: PostgresTestServer.skipMessage))
    }
}
