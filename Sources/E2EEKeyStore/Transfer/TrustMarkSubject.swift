/// The subject of a transfer mark (`transfer_marks`, schema `v21`): one decided thing, as text.
package enum TrustMarkSubject {
    /// A channel's kind and standing.
    static func channel(_ channelID: String) -> String { "channel:\(channelID)" }
    /// A DM's participants.
    static func participants(_ channelID: String) -> String { "participants:\(channelID)" }
    /// A member's standing in a group.
    static func member(_ channelID: String, _ userID: String) -> String { "member:\(channelID)/\(userID)" }
    /// A device's standing in a channel (`*`: every channel).
    static func hold(_ channelID: String?, _ userID: String, _ deviceID: String?) -> String {
        "hold:\(channelID ?? "*")/\(userID)/\(deviceID ?? "*")"
    }
    /// A device trusted (own or a contact's).
    static func device(_ userID: String, _ deviceID: String) -> String { "device:\(userID)/\(deviceID)" }
    /// A contact's key standing.
    static func key(_ userID: String) -> String { "key:\(userID)" }
}
