import E2EECrypto
import FuzzSupport

/// The public key forms a server lists: identity blobs, signed prekey records and one-time prekeys,
/// from bytes and from their base64 text. The first byte picks the form. Property: an
/// accepted form encodes back to the same bytes, and its base64 parses to the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPublishedKeys(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (selector, rest) = FuzzInput.selector(FuzzInput.bytes(data, size)) else { return 0 }
    switch selector % 4 {
    case 0:
        guard let blob = try? IdentityBlob(bytes: rest) else { return 0 }
        PropertyCheck.require(blob.bytes == rest, "identity blob re-encodes to other bytes")
        PropertyCheck.require((try? IdentityBlob(base64: blob.base64)) == blob, "identity blob base64 round trip")
    case 1:
        guard let key = try? SignedPrekeyRecord(bytes: rest) else { return 0 }
        PropertyCheck.require(key.bytes == rest, "signed prekey record re-encodes to other bytes")
        PropertyCheck.require((try? SignedPrekeyRecord(base64: key.base64)) == key, "signed prekey record base64 round trip")
    case 2:
        guard let key = try? PublishedOneTimePrekey(bytes: rest) else { return 0 }
        PropertyCheck.require(key.bytes == rest, "one-time prekey re-encodes to other bytes")
        PropertyCheck.require((try? PublishedOneTimePrekey(base64: key.base64)) == key, "one-time prekey base64 round trip")
    default:
        let text = String(decoding: rest, as: UTF8.self)
        _ = try? IdentityBlob(base64: text)
        _ = try? SignedPrekeyRecord(base64: text)
        _ = try? PublishedOneTimePrekey(base64: text)
    }
    return 0
}

/// The program's entry (see `FuzzDriver`).
@_cdecl("fuzz_published_keys_main")
public func fuzzPublishedKeysMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc: argc, argv: argv, fuzzPublishedKeys)
}
