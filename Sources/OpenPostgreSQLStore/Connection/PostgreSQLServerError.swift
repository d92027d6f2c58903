#if PostgreSQL
    import OpenSQLStore
    import PostgresNIO

    /// An error of the PostgreSQL connection layer: what kind of failure, PostgreSQL's SQLSTATE when
    /// the server sent one, and a message naming the server (its URL, password masked) and, for a
    /// statement, the SQL.
    ///
    /// ```swift
    /// do { try session.execute("SELEC 1") } catch {
    ///     error.kind        // .syntax
    ///     error.sqlState    // "42601"
    ///     error.message     // "PostgreSQL at postgres://app@db:5432/app: syntax error at or near \"SELEC\" (SQL: SELEC 1)"
    /// }
    /// ```
    package struct PostgreSQLServerError: Error, CustomStringConvertible {
        /// What went wrong, as the store must react to it.
        package enum Kind: Sendable {
            /// The server can't be reached, refused the connection, or the connection was lost. A
            /// transaction that was open on a lost connection was rolled back by the server.
            case connection
            /// `COMMIT` was sent but its answer never came (the connection was lost): the
            /// transaction may or may not be committed. Never retried by this layer.
            case commitOutcomeUnknown
            /// SQLSTATE 40001: the transaction can't be serialized; running it again may succeed.
            case serializationFailure
            /// SQLSTATE 40P01: the transaction was chosen as a deadlock victim; running it again may succeed.
            case deadlock
            /// SQLSTATE 23505: a unique constraint or index refused a row.
            case uniqueViolation
            /// SQLSTATE 42P01: a table the statement names doesn't exist.
            case undefinedTable
            /// SQLSTATE 42601: the statement is not valid SQL.
            case syntax
            /// Anything else: other server errors (see `sqlState`), values PostgreSQL can't hold,
            /// calls from an event-loop thread, a closed database.
            case other
        }

        /// What went wrong.
        package var kind: Kind
        /// PostgreSQL's five-character SQLSTATE, when the server reported the error.
        package var sqlState: String?
        /// A sentence naming the server (its redacted URL) and, for a statement, the SQL.
        package var message: String

        package init(_ kind: Kind, sqlState: String? = nil, message: String) {
            self.kind = kind
            self.sqlState = sqlState
            self.message = message
        }

        package var description: String { message }

        /// The kind of a server error from its SQLSTATE.
        static func kind(sqlState: String) -> Kind {
            switch sqlState {
            case "40001": .serializationFailure
            case "40P01": .deadlock
            case "23505": .uniqueViolation
            case "42P01": .undefinedTable
            case "42601": .syntax
            // Class 08 (connection exception) and the shutdown codes of class 57P (the backend was
            // terminated: pg_terminate_backend, server shutdown, crash).
            case "57P01", "57P02", "57P03": .connection
            default: sqlState.hasPrefix("08") ? .connection : .other
            }
        }

        /// A synchronous call made on an event-loop thread (`sql`: the statement it would have run).
        static func calledOnEventLoop(server: String, sql: String? = nil) -> PostgreSQLServerError {
            PostgreSQLServerError(
                .other,
                message: "PostgreSQL at \(server): a synchronous store call was made on a SwiftNIO event-loop thread, "
                    + "which would deadlock (that thread must deliver the answer); call it from another thread"
                    + (sql.map { " (SQL: \($0))" } ?? ""))
        }

        /// The connection was found closed before `COMMIT` was sent.
        static func lostBeforeCommit(server: String) -> PostgreSQLServerError {
            PostgreSQLServerError(
                .connection,
                message: "PostgreSQL at \(server): the connection was lost before COMMIT was sent; "
                    + "the server rolled the transaction back")
        }

        /// The connection was lost after `COMMIT` was sent, before its answer (`cause`: what
        /// postgres-nio reported).
        static func lostWhileCommitting(server: String, cause: PostgreSQLServerError?) -> PostgreSQLServerError {
            PostgreSQLServerError(
                .commitOutcomeUnknown, sqlState: cause?.sqlState,
                message: "PostgreSQL at \(server): the connection was lost while committing; the transaction "
                    + "may or may not be committed (COMMIT is not sent again)"
                    + (cause.map { ". Cause: \($0.message)" } ?? ""))
        }

        /// Translates what postgres-nio threw while running `sql` (nil: while connecting) against
        /// the server at `server`.
        static func from(_ error: any Error, server: String, sql: String?) -> PostgreSQLServerError {
            if let error = error as? PostgreSQLServerError { return error }
            let statement = sql.map { " (SQL: \($0))" } ?? ""
            guard let psql = error as? PSQLError else {
                if error is CancellationError {
                    return PostgreSQLServerError(
                        .other, message: "PostgreSQL at \(server): the operation was cancelled\(statement)")
                }
                return PostgreSQLServerError(.connection, message: "PostgreSQL at \(server): \(error)\(statement)")
            }
            if psql.code == .server, let info = psql.serverInfo {
                let state = info[.sqlState] ?? "XX000"
                var text = info[.message] ?? "server error"
                if let detail = info[.detail] { text += " — \(detail)" }
                return PostgreSQLServerError(
                    kind(sqlState: state), sqlState: state,
                    message: "PostgreSQL at \(server): \(text) [SQLSTATE \(state)]\(statement)")
            }
            let kind: Kind
            let reason: String
            switch psql.code {
            case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .connectionError, .poolClosed:
                kind = .connection
                reason = "the connection was lost or could not be made (\(psql.code))"
            case .sslUnsupported, .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest:
                kind = .connection
                reason = "TLS could not be set up (\(psql.code))"
            case .unsupportedAuthMechanism, .authMechanismRequiresPassword, .saslError:
                kind = .connection
                reason = "authentication failed (\(psql.code))"
            case .tooManyParameters:
                kind = .other
                reason = "a statement can bind at most 65,535 values"
            default:
                kind = .other
                reason = "\(psql.code)"
            }
            var underlying = ""
            if let cause = psql.underlying { underlying = ": \(cause)" }
            return PostgreSQLServerError(kind, message: "PostgreSQL at \(server): \(reason)\(underlying)\(statement)")
        }
    }
#endif
