import NIOCore

/// Keep-alive connections whose next request is to be closed unanswered (see
/// ``DevServerQuirks/closeConnectionAfterCommitLag``). A mark goes when it is used or when its
/// connection closes.
actor ConnectionMarks {
    private var marked: Set<ObjectIdentifier> = []

    /// Marks `channel`'s connection.
    func mark(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        marked.insert(id)
        channel.closeFuture.whenComplete { _ in Task { await self.unmark(id) } }
    }

    /// Whether `channel` was marked; the mark is removed.
    func take(_ channel: any Channel) -> Bool {
        marked.remove(ObjectIdentifier(channel)) != nil
    }

    private func unmark(_ id: ObjectIdentifier) { marked.remove(id) }
}
