// `import CoreData` on Linux: everything OpenCoreData declares, and Foundation with it, as Apple's
// CoreData module re-exports Foundation.
@_exported import OpenCoreData
