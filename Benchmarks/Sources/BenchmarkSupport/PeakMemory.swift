import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Peak resident memory of this process so far, in MB: `VmHWM` of /proc/self/status, which
/// starts afresh at exec (getrusage's `ru_maxrss` keeps the parent's peak in a spawned child,
/// and is the answer only where /proc is missing).
public func peakMegabytes() -> Double {
    if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
    {
        return kilobytes / 1024
    }
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}
