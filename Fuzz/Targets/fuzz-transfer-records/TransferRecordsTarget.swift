import E2EECrypto
import FuzzSupport

/// The records of a link transfer chunk (docs/spec/protocol.md §11.2), read by
/// `TransferRecordDecoder` with the manifest digest fed as it goes. Properties: every record
/// returned encodes back to exactly the bytes it was read from, in order; the digest is SHA-256
/// of those bytes; the decoder either consumes the whole chunk or refuses it; and
/// `TransferRecord.decode` accepts the input exactly when it is one whole record.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTransferRecords(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzInput.bytes(data, size)
    var decoder = TransferRecordDecoder(records: SecretBytes(copying: bytes))
    var digest = TransferDigest()
    var consumed: [UInt8] = []
    var records: [TransferRecord] = []
    var refused = false
    while true {
        do {
            guard let record = try decoder.next(updating: &digest) else { break }
            let encoded = record.encoded().unprotectedCopy()
            PropertyCheck.require(Array(bytes[consumed.count..<min(bytes.count, consumed.count + encoded.count)]) == encoded,
                                  "a record re-encodes to other bytes than it was read from")
            consumed += encoded
            records.append(record)
        } catch {
            refused = true
            break
        }
    }
    PropertyCheck.require(digest.digest == SHA256.hash(consumed) && digest.recordCount == records.count, "the digest is not over the records read")
    PropertyCheck.require(refused || consumed == bytes, "the decoder ended before the chunk did")
    let single = try? TransferRecord.decode(SecretBytes(copying: bytes))
    PropertyCheck.require((single != nil) == (!refused && records.count == 1), "one whole record and TransferRecord.decode disagree")
    return 0
}

/// The program's entry (see `FuzzDriver`).
@_cdecl("fuzz_transfer_records_main")
public func fuzzTransferRecordsMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc: argc, argv: argv, fuzzTransferRecords)
}
