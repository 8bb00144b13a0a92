import Foundation

/// A local HTTP server on a free loopback port that answers every request with a head
/// promising a large body and then drips that body one byte at a time (issue 16, item 7):
/// every byte arrives well within a read timeout, the whole answer never does.
final class DripServer: @unchecked Sendable {
    private let listener: Int32
    /// The port it listens on (chosen by the kernel).
    let port: Int
    private let interval: useconds_t
    private let lock = NSLock()
    private var stopped = false
    private var clients: [Int32] = []

    /// Starts listening; each connection is served on its own thread.
    init(dripEvery seconds: Double) throws {
        interval = useconds_t(seconds * 1_000_000)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 8) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// The base URL clients use.
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Stops accepting and closes every connection.
    func stop() {
        let open = lock.withLock { () -> [Int32] in
            stopped = true
            defer { clients = [] }
            return clients
        }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for client in open { shutdown(client, Int32(SHUT_RDWR)) }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func acceptLoop() {
        while !isStopped {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            lock.withLock { clients.append(client) }
            Thread.detachNewThread { [self] in serve(client) }
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        guard recv(client, &buffer, buffer.count, 0) > 0 else { return }
        let head = Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n[".utf8)
        guard send(client, head, head.count, Int32(MSG_NOSIGNAL)) == head.count else { return }
        let byte: [UInt8] = [0x20]
        while !isStopped {
            usleep(interval)
            guard send(client, byte, 1, Int32(MSG_NOSIGNAL)) == 1 else { return }
        }
    }
}
