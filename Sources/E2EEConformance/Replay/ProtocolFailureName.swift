import E2EECrypto

/// The `ProtocolError` case name of `error` (the `failure` field), or `nil` for other errors.
public func protocolFailureName(_ error: any Error) -> String? {
    guard let error = error as? ProtocolError else { return nil }
    return switch error {
    case .malformed: "malformed"
    case .truncated: "truncated"
    case .trailingBytes: "trailingBytes"
    case .unsupportedVersion: "unsupportedVersion"
    case .limitExceeded: "limitExceeded"
    case .badSignature: "badSignature"
    case .badTag: "badTag"
    case .keyCommitMismatch: "keyCommitMismatch"
    case .invalidKey: "invalidKey"
    case .allZeroSharedSecret: "allZeroSharedSecret"
    case .replay: "replay"
    case .duplicate: "duplicate"
    case .positionReused: "positionReused"
    case .tooOld: "tooOld"
    case .tooFarAhead: "tooFarAhead"
    case .identityMismatch: "identityMismatch"
    case .senderMismatch: "senderMismatch"
    case .unknownSession: "unknownSession"
    case .unknownSenderKey: "unknownSenderKey"
    case .unknownPrekey: "unknownPrekey"
    case .cannotSendYet: "cannotSendYet"
    case .unencrypted: "unencrypted"
    case .wrongEnvelopeType: "wrongEnvelopeType"
    case .invalidRecipients: "invalidRecipients"
    case .channelMismatch: "channelMismatch"
    case .senderKeyConflict: "senderKeyConflict"
    case .notARecipient: "notARecipient"
    case .editMismatch: "editMismatch"
    case .crypto: "crypto"
    }
}
