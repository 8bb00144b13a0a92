import E2EECrypto

/// One value of a `fields` object in `link_test.json`: UUID text, lower-case hex or a name, or
/// an integer.
public enum LinkFieldValue: Sendable, Equatable {
    /// A string (UUID text, hex, a kind name; `""` for an absent id).
    case text(String)
    /// An integer.
    case int(Int64)

    /// Whether the vector's JSON value is this one.
    func matches(_ json: JSONValue?) -> Bool {
        switch self {
        case .text(let text): json?.string == text
        case .int(let value): json?.int.map(Int64.init) == value
        }
    }
}

/// The `fields` object a link plaintext or transfer record is described by in `link_test.json`
/// (the generator writes it, the runner compares a decoded value with it; the README of
/// `TestVectors/protocol/` lists the names).
public enum LinkVectorFields {
    /// The fields of `plaintext`, in file order.
    public static func of(_ plaintext: LinkPlaintext) -> [(String, LinkFieldValue)] {
        var out: [(String, LinkFieldValue)] = [("kind", .text(name(of: plaintext.kind)))]
        switch plaintext {
        case .request(let id, let commit): out += [("requestId", id.text), ("commit", hex(commit))].map(text)
        case .accept(let id, let nonce), .reveal(let id, let nonce): out += [("requestId", id.text), ("nonce", hex(nonce.unprotectedCopy()))].map(text)
        case .grant(let grant):
            out += [("requestId", grant.requestID.text), ("certificate", hex(grant.certificate.bytes)), ("transferId", grant.transferID.text),
                    ("transferChannelId", grant.transferChannelID.text)].map(text)
        case .cancel(let id, let reason): out += [("id", .text(id.text)), ("reason", .int(Int64(reason.rawValue)))]
        case .recert(let certificate, let signature): out += [("certificate", hex(certificate.bytes)), ("primarySignature", hex(signature))].map(text)
        case .manifest(let m):
            out += [("transferId", .text(m.transferID.text)), ("index", .int(Int64(m.index))), ("phase", .int(Int64(m.phase.rawValue))),
                    ("trustCount", .int(Int64(m.trustCount))), ("recordCount", .int(Int64(m.recordCount))),
                    ("chunkCount", .int(Int64(m.chunkCount))), ("truncated", .int(m.truncated ? 1 : 0)), ("digest", .text(hex(m.digest)))]
        case .chunk(let id, let index, let records):
            out += [("transferId", .text(id.text)), ("index", .int(Int64(index))), ("records", .text(hex(records.unprotectedCopy())))]
        case .ack(let id, let next): out += [("transferId", .text(id.text)), ("nextIndex", .int(Int64(next)))]
        }
        return out
    }

    /// The fields of `record`, in file order.
    public static func of(_ record: TransferRecord) -> [(String, LinkFieldValue)] {
        switch record {
        case .trust(let trust): return [("kind", .text("trust"))] + of(trust)
        case .message(let m):
            return [("kind", .text("message")), ("channelId", .text(m.channelID.text)), ("messageId", .text(m.messageID.text)),
                    ("senderId", .text(m.senderID.text)), ("senderDeviceId", .text(m.senderDeviceID.text)),
                    ("createdAt", .int(Int64(bitPattern: m.createdAt))), ("edited", .int(m.edited ? 1 : 0)),
                    ("payload", .text(hex(m.payload.unprotectedCopy())))]
        case .deleted(let channel, let message):
            return [("kind", .text("deleted")), ("channelId", .text(channel.text)), ("messageId", .text(message.text))]
        }
    }

    private static func of(_ trust: TrustRecord) -> [(String, LinkFieldValue)] {
        var out: [(String, LinkFieldValue)] = [("subKind", .text(name(of: trust.subKind)))]
        switch trust {
        case .ownDevice(let device, let identity, let certificate):
            out += [("deviceId", device.text), ("identityBlob", hex(identity.bytes)), ("certificate", hex(certificate.bytes))].map(text)
        case .channel(let channel, let kind, let standing):
            out += [("channelId", .text(channel.text)), ("channelKind", .int(Int64(kind.rawValue))), ("standing", .int(Int64(standing.rawValue)))]
        case .dmParticipant(let channel, let user), .approvedMember(let channel, let user):
            out += [("channelId", channel.text), ("userId", user.text)].map(text)
        case .hold(let channel, let user, let device, let state):
            out += [("channelId", .text(channel?.text ?? "")), ("userId", .text(user.text)), ("deviceId", .text(device?.text ?? "")),
                    ("state", .int(Int64(state.rawValue)))]
        case .contactKey(let c):
            out += [("userId", .text(c.userID.text)), ("userKey", .text(hex(c.userKey.rawRepresentation))), ("state", .int(Int64(c.state.rawValue))),
                    ("userConflicted", .int(c.userConflicted ? 1 : 0)), ("seenUntil", .int(Int64(c.seenUntil))), ("seenAt", .int(Int64(c.seenAt))),
                    ("eMax", .int(Int64(c.highestEpoch))), ("deviceId", .text(c.deviceID.text)), ("identityBlob", .text(hex(c.identity.bytes))),
                    ("certificate", .text(hex(c.certificate.bytes)))]
        case .deviceWithoutCertificate(let user, let device, let identity, let until):
            out += [("userId", .text(user.text)), ("deviceId", .text(device.text)), ("identityBlob", .text(hex(identity.bytes))),
                    ("until", .int(Int64(until ?? 0)))]
        }
        return out
    }

    /// The name of a plaintext kind in the files (`"request"` … `"ack"`).
    public static func name(of kind: LinkPlaintext.Kind) -> String {
        switch kind {
        case .request: "request"
        case .accept: "accept"
        case .reveal: "reveal"
        case .grant: "grant"
        case .cancel: "cancel"
        case .recert: "recert"
        case .manifest: "manifest"
        case .chunk: "chunk"
        case .ack: "ack"
        }
    }

    /// The name of a trust sub-kind in the files.
    public static func name(of subKind: TrustRecord.SubKind) -> String {
        switch subKind {
        case .ownDevice: "ownDevice"
        case .channel: "channel"
        case .dmParticipant: "dmParticipant"
        case .approvedMember: "approvedMember"
        case .hold: "hold"
        case .contactKey: "contactKey"
        case .deviceWithoutCertificate: "deviceWithoutCertificate"
        }
    }

    /// Whether `json` is an object with exactly `fields`.
    static func matches(_ fields: [(String, LinkFieldValue)], _ json: JSONValue?) -> Bool {
        guard case .object(let object)? = json, object.count == fields.count else { return false }
        return fields.allSatisfy { $0.1.matches(object[$0.0]) }
    }

    private static func text(_ pair: (String, String)) -> (String, LinkFieldValue) { (pair.0, .text(pair.1)) }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0f)]] })
    }
}
