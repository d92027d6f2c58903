import OpenSQLStore

/// What `coredata --version` prints.
enum ToolVersion {
    /// The package's version, raised with each release.
    static let package = "0.9.0"

    /// The version line: the tool's version, and the Core Data framework version the stores it
    /// writes say they were written by.
    static var text: String {
        "\(package) (OpenCoreData; stores written as Core Data framework version \(AppleSQLMetadata.frameworkVersion))"
    }
}
