import E2EECrypto
@_spi(StoreInternals) import E2EEKeyStore
import Foundation
import FuzzSupport

/// Every secret form the key store unseals, then parses: session states and records, receiving
/// and sending sender-key states, signed and one-time prekeys, the identity key pair; and the
/// sealed envelope itself (`Sealer.open`, version byte, nonce, box). The first byte picks the
/// form. Property: an accepted form serialises back to exactly the bytes it was read from.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStoredForms(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (selector, rest) = FuzzInput.selector(FuzzInput.bytes(data, size)) else { return 0 }
    let secret = SecretBytes(copying: rest)
    let form: String
    let reserialized: SecretBytes?
    switch selector % UInt8(StoredForm.allCases.count) {
    case 0: (form, reserialized) = ("session state", (try? SessionState(serialized: secret))?.serialized())
    case 1: (form, reserialized) = ("session record", (try? SessionRecord(serialized: secret))?.serialized())
    case 2: (form, reserialized) = ("receiving sender key", (try? SenderKeyReceivingState(serialized: secret))?.serialized())
    case 3: (form, reserialized) = ("sending sender key", (try? SenderKeySendingState(serialized: secret))?.serialized())
    case 4: (form, reserialized) = ("signed prekey", (try? SignedPrekey(serialized: secret))?.serialized())
    case 5: (form, reserialized) = ("one-time prekey", (try? OneTimePrekey(serialized: secret))?.serialized())
    case 6: (form, reserialized) = ("identity key pair", (try? IdentityKeyPair(serialized: secret))?.serialized())
    default:
        let sealer = FuzzFixtures.sealer
        if let opened = try? sealer.open(Data(rest), table: "sessions", column: "state", rowID: "fuzz") {
            // Only a value sealed under this key for this cell opens; it must open to what was sealed.
            let again = try? sealer.open(sealer.seal(opened, table: "sessions", column: "state", rowID: "fuzz"),
                                         table: "sessions", column: "state", rowID: "fuzz")
            PropertyCheck.require(again == opened, "a sealed value does not open to what was sealed")
        }
        return 0
    }
    if let reserialized {
        PropertyCheck.require(reserialized == secret, "an accepted \(form) serialises to other bytes")
    }
    return 0
}

/// The program's entry (see `FuzzDriver`).
@_cdecl("fuzz_stored_forms_main")
public func fuzzStoredFormsMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc: argc, argv: argv, fuzzStoredForms)
}

/// Writes real serialised state as seeds when `FUZZ_WRITE_SEEDS` is set.
@_cdecl("LLVMFuzzerInitialize")
public func initializeStoredForms(_ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    guard SeedWriter.folder != nil else { return 0 }
    do {
        try SeedWriter.write(ReceivingScenario().storedFormSeeds(), prefix: "state")
    } catch {
        PropertyCheck.require(false, "cannot write seeds: \(error)")
    }
    return 0
}
