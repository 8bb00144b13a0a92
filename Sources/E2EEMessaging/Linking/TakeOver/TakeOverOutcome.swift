/// What ``Account/takeOverPrimary(from:ignoringAnotherKey:)`` did (docs/spec/protocol.md §10.15).
public enum TakeOverOutcome: Sendable, Equatable {
    /// This device is the primary now: the old device was removed (§10.14) at `epoch`, this
    /// device kept and certified at it, and the old store's trust decisions and history carried
    /// over on this installation.
    case tookOver(removed: DeviceID, epoch: UInt32)
    /// Nothing was done: our own listing shows a current certificate of our user under another
    /// key. `carriers` are the devices the primary file keeps that carry it — empty when none
    /// does (a fresh login's reset, or a device the server made). The user links this device to
    /// the new primary (``Account/startLinking()``) or, sure that no reset was made, runs the
    /// take-over again with `ignoringAnotherKey`.
    case anotherKeyListed(keys: [UserKey], carriers: [DeviceID])
}
