/// Why a primary device stopped issuing certificates for good (docs/spec/protocol.md §10.12).
/// The device stays linked until its own certificate expires; the user resets the key.
public enum IssuingStopReason: String, Sendable, Equatable, CaseIterable {
    /// Our own listing shows a current certificate under our key that this primary never
    /// issued: someone else holds the key (a restored copy, a stolen file).
    case anotherHolder
    /// The store remembers a newer primary file than the one beside it (epoch, log count or
    /// trust counter ahead): the file was restored from an older copy.
    case restoredFile
    /// The store says this device is the primary but the primary file is gone (as after
    /// restoring a backup, which never holds the file).
    case fileMissing
    /// The user confirmed a reset made on another device.
    case resetElsewhere
}
