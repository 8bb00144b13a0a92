import E2EECrypto
@testable import E2EEMessaging
@testable import E2EETransport
import FuzzSupport

/// Published bundles as a client reads them: the server's JSON (`[DeviceBundle]`, decoded by
/// the transport's own `HTTPChatServer.decode`), each turned into a `PrekeyBundle`, which
/// checks the identity blob, the signed prekey, its signature and the one-time prekey.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPrekeyBundle(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzInput.bytes(data, size)
    guard let bundles = try? HTTPChatServer.decode([DeviceBundle].self, bytes) else { return 0 }
    for json in bundles {
        guard let bundle = try? PrekeyBundle(deviceID: json.deviceID.rawValue, identityKey: json.identityKey, signedPreKey: json.signedPreKey,
                                             signedPreKeySignature: json.signedPreKeySignature, oneTimePreKey: json.oneTimePreKey) else { continue }
        PropertyCheck.require(bundle.identity.base64 == json.identityKey, "an accepted bundle's identity is not the listed one")
    }
    return 0
}

/// The program's entry (see `FuzzDriver`).
@_cdecl("fuzz_prekey_bundle_main")
public func fuzzPrekeyBundleMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc: argc, argv: argv, fuzzPrekeyBundle)
}
