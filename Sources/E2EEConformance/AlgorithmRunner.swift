/// What running one vector produced, before it is judged against the expected result.
public enum Attempt {
    /// The implementation accepted the input and its output equals the vector's.
    case matched
    /// The implementation accepted the input but produced something else.
    case mismatched(String)
    /// The implementation refused the input with this error.
    case rejected(any Error)
    /// The vector uses parameters this implementation does not offer (for instance an AES-GCM
    /// nonce that is not 96 bits); counted and reported, never judged.
    case unsupported(String)
    /// The implementation refused the input, but not the way the vector says (a protocol file's
    /// `failure`), or a check of the vector's own consistency failed: a failure whatever the
    /// expected result.
    case misrefused(String)
}

/// The verdict on one vector.
public enum Verdict: Sendable, Equatable {
    /// The implementation did what the vector says.
    case passed
    /// It did not; the text says how.
    case failed(String)
    /// Not judged (unsupported parameters); the text says why.
    case skipped(String)

    /// Wycheproof's rule: `valid` must be accepted with the expected output, `invalid` must be
    /// refused (or produce something else), `acceptable` may go either way.
    public init(attempt: Attempt, expected: ExpectedResult) {
        switch (attempt, expected) {
        case (.unsupported(let why), _):
            self = .skipped(why)
        case (.misrefused(let why), _):
            self = .failed(why)
        case (_, .acceptable), (.matched, .valid), (.rejected, .invalid), (.mismatched, .invalid):
            self = .passed
        case (.matched, .invalid):
            self = .failed("an invalid vector was accepted")
        case (.mismatched(let detail), .valid):
            self = .failed("wrong output: \(detail)")
        case (.rejected(let error), .valid):
            self = .failed("a valid vector was refused: \(error)")
        }
    }
}

/// Runs vectors of the algorithms it names.
public protocol AlgorithmRunner: Sendable {
    /// The Wycheproof `algorithm` names this runner understands.
    var algorithms: Set<String> { get }
    /// Runs one vector; throwing means the vector itself is malformed.
    func attempt(_ vector: VectorCase) throws -> Attempt
}

extension AlgorithmRunner {
    /// `.matched` when `actual == expected`, else a readable mismatch.
    func compare(_ actual: [UInt8], _ expected: [UInt8]) -> Attempt {
        actual == expected ? .matched : .mismatched("got \(actual.count) bytes that differ from the \(expected.count) expected")
    }

    /// Runs `body`, turning a thrown ``Mismatch`` into `.mismatched`, a field the vector lacks
    /// into `.misrefused` and any other thrown implementation error into `.rejected`.
    func refusing(_ body: () throws -> Attempt) -> Attempt {
        do {
            return try body()
        } catch let mismatch as Mismatch {
            return .mismatched(mismatch.detail)
        } catch let error as VectorFieldError {
            return .misrefused("malformed vector: \(error)")
        } catch {
            return .rejected(error)
        }
    }
}

/// Every runner, keyed by algorithm name.
public enum Runners {
    /// The runners of the primitive vector files.
    public static let primitives: [any AlgorithmRunner] = [
        XDHRunner(), XDHIteratedRunner(), EdDSARunner(), HKDFRunner(), HMACRunner(),
        AEADRunner(), Argon2idRunner(), HashRunner(),
    ]

    /// The runners of the protocol files (TestVectors/protocol/).
    public static let protocolFiles: [any AlgorithmRunner] = [
        X3DHRunner(), RatchetRunner(), EnvelopeRunner(), SafetyNumberRunner(), PayloadRunner(), SenderKeyChainRunner(), RecordRunner(),
        LinkRunner(),
    ]

    /// Every runner.
    public static let all: [any AlgorithmRunner] = primitives + protocolFiles

    /// The runner for `algorithm`, if there is one.
    public static func runner(for algorithm: String) -> (any AlgorithmRunner)? {
        all.first { $0.algorithms.contains(algorithm) }
    }
}
