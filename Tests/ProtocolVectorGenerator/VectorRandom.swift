import E2EEConformance
import E2EECrypto

/// A ``RandomSource`` over a seeded ``DeterministicRandom`` that also keeps what it handed out,
/// so a generator can write every private value the code drew (``take()``).
public final class RecordingRandom: RandomSource, @unchecked Sendable {
    private let base: DeterministicRandom
    // Only touched from the single generating thread.
    private var drawn: [UInt8] = []

    /// A recorder over `DeterministicRandom(seed: UTF-8 of seedLabel)`.
    public init(seedLabel: String) {
        base = DeterministicRandom(seed: Array(seedLabel.utf8))
    }

    /// Fills `buffer` from the seeded stream and records the bytes.
    public func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        base.fill(buffer)
        drawn += Array(buffer)
    }

    /// The bytes drawn since the last call, then forgets them.
    public func take() -> [UInt8] {
        defer { drawn = [] }
        return drawn
    }

    /// Draws `count` bytes and forgets them from the record.
    public func draw(_ count: Int) -> [UInt8] {
        _ = take()
        let bytes = self.bytes(count: count)
        _ = take()
        return bytes
    }

    /// A fresh UUID (16 drawn bytes) as text.
    public func uuid() throws -> WireUUID { try WireUUID(bytes: draw(16)) }
}

/// Raised by the generator when our own code does not behave as a vector needs (the file is
/// then not written).
public struct GeneratorError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Bytes of any secret or public byte container.
func bytesOf(_ value: some ByteView) -> [UInt8] {
    value.withByteView { Array($0) }
}

/// Runs `body`, which must be refused with `expected`; returns the case name.
/// - Throws: ``GeneratorError`` when it succeeds or fails otherwise.
func refusal(_ expected: String, _ what: String, _ body: () throws -> Void) throws -> String {
    do {
        try body()
    } catch {
        let name = protocolFailureName(error)
        guard name == expected else { throw GeneratorError("\(what): refused as \(name ?? "\(error)"), expected \(expected)") }
        return expected
    }
    throw GeneratorError("\(what): accepted, expected \(expected)")
}

extension [UInt8] {
    /// A copy with `mask` XORed into byte `index`.
    func flipping(_ index: Int, _ mask: UInt8 = 0x01) -> [UInt8] {
        var copy = self
        copy[index] ^= mask
        return copy
    }
}

/// Runs `body`, which must be refused with a typed `ProtocolError`; returns its case name.
/// - Throws: ``GeneratorError`` when it succeeds or throws something untyped.
func anyRefusal(_ what: String, _ body: () throws -> Void) throws -> String {
    do {
        try body()
    } catch {
        guard let name = protocolFailureName(error) else { throw GeneratorError("\(what): untyped error \(error)") }
        return name
    }
    throw GeneratorError("\(what): accepted, expected a refusal")
}
