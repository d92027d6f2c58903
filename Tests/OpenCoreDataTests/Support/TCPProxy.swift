import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP proxy on 127.0.0.1 to a local server, which a test stops and starts again as if the
/// server went away and came back: `stop()` cuts every connection and refuses new ones;
/// `start()` listens again on the same port.
final class TCPProxy: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let upstreamPort: UInt16
    private(set) var port: UInt16 = 0
    private let lock = NSLock()
    private var listener: Int32 = -1
    private var connections: Set<Int32> = []

    init(upstreamPort: UInt16) throws {
        self.upstreamPort = upstreamPort
        try start()
    }

    deinit { stop() }

    /// Listens (again) on the proxy's port; each connection is relayed to the server.
    func start() throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket() failed") }
        var one: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(socket, 64) == 0 else {
            close(socket)
            throw Failure(description: "can't listen on 127.0.0.1:\(port): errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        lock.withLock {
            listener = socket
            port = UInt16(bigEndian: address.sin_port)
        }
        Thread.detachNewThread { [self] in acceptLoop(socket) }
    }

    /// Cuts every relayed connection and stops listening: clients see the server vanish.
    func stop() {
        lock.withLock {
            if listener >= 0 {
                shutdown(listener, Int32(SHUT_RDWR))
                close(listener)
                listener = -1
            }
            for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
        }
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func acceptLoop(_ socket: Int32) {
        while true {
            let client = accept(socket, nil, nil)
            guard client >= 0 else { return }
            let upstream = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: upstreamPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else {
                close(client)
                close(upstream)
                continue
            }
            lock.withLock {
                connections.insert(client)
                connections.insert(upstream)
            }
            Thread.detachNewThread { [self] in relay(from: client, to: upstream) }
            Thread.detachNewThread { [self] in relay(from: upstream, to: client) }
        }
    }

    /// Copies bytes one way until either side closes, then closes both.
    private func relay(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        loop: while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var sent = 0
            while sent < count {
                let written = buffer.withUnsafeBytes { send(destination, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL)) }
                guard written > 0 else { break loop }
                sent += written
            }
        }
        lock.withLock {
            shutdown(source, Int32(SHUT_RDWR))
            shutdown(destination, Int32(SHUT_RDWR))
            // The first relay of the pair to end takes both out of the set; the second closes them.
            let first = connections.remove(source) != nil
            connections.remove(destination)
            if !first {
                close(source)
                close(destination)
            }
        }
    }
}
