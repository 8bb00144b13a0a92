@testable import E2EECrypto
import FuzzSupport

/// The recipient list of DM and SKD envelopes (`RecipientEntry.readList`, internal: reached
/// with `@testable import`). The first byte picks the location (DM or SKD) and whether the
/// sender appears; the rest is the list. Property: accepted entries are unique, never the
/// sender, and each lookup finds its own message.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecipientEntries(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (selector, rest) = FuzzInput.selector(FuzzInput.bytes(data, size)) else { return 0 }
    let location: WireLocation = selector & 1 == 0 ? .dmEnvelope : .skdEnvelope
    let sender = (try? WireUUID(bytes: [UInt8](repeating: selector, count: 16))) ?? FuzzFixtures.zeroUUID
    var reader = WireReader(rest, location: location)
    guard let entries = try? RecipientEntry.readList(from: &reader, sender: sender, at: location) else { return 0 }
    PropertyCheck.require(Set(entries.map(\.recipientDevice)).count == entries.count, "duplicate recipient accepted")
    PropertyCheck.require(!entries.contains { $0.recipientDevice == sender }, "the sender accepted as a recipient")
    for entry in entries {
        PropertyCheck.require((try? entries.pairwiseMessage(for: entry.recipientDevice)) == entry.pairwiseMessage, "lookup returned another entry")
    }
    return 0
}

/// The program's entry (see `FuzzDriver`).
@_cdecl("fuzz_recipient_entries_main")
public func fuzzRecipientEntriesMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc: argc, argv: argv, fuzzRecipientEntries)
}
