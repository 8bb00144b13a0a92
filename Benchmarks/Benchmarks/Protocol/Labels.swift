import Foundation

/// Named byte strings the protocol uses as HKDF info and as labels (docs/spec/protocol.md §2–§4).
enum Labels {
    static let x3dhInfo = Array("e2ee-x3dh-v1".utf8)
    static let ratchetInfo = Array("e2ee-ratchet-v1".utf8)
    static let messageInfo = Array("e2ee-msg-v1".utf8)
    static let groupInfo = Array("e2ee-group-v1".utf8)
    static let groupAAD = Array("e2ee-group-aad-v1".utf8)
    static let groupSignature = Array("e2ee-group-sig-v1".utf8)
}
