extension FaultInjector {
    /// Why a fault that writes rows (``FaultInjector/releasePosts()``,
    /// ``FaultInjector/repost(messageID:channelID:)``,
    /// ``FaultInjector/postAs(userID:deviceID:channelID:contentType:content:visibleTo:protocolVersion:)``)
    /// did not.
    public enum FaultError: Error, Sendable, Equatable {
        /// The injector belongs to no running server (made with ``FaultInjector/init()``).
        case notAttached
        /// There is no message with this id.
        case messageNotFound(String)
        /// There is no channel with this id.
        case channelNotFound(String)
        /// There is no user with this id.
        case userNotFound(String)
    }
}
