/// Whether ``Account/register(username:password:deviceName:server:store:configuration:)``
/// creates a user key (docs/spec/protocol.md §10, text 1.3). Contacts' keys, and the rules for
/// our own user once it has a key, hold in both modes.
public enum LinkingMode: Sendable, Equatable {
    /// Registering creates no key (the default); ``Account/createUserKey()`` can create one later.
    case off
    /// Registering creates the user key: the first device is the primary (the app must supply
    /// ``AccountConfiguration/primaryFileKeychain`` and a store on disk).
    case on
}
