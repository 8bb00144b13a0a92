import E2EECrypto
import FuzzSupport

/// Property target: a receiving device with an established DM session and an installed sender
/// key is fed mutated copies of real envelopes from its peer (the seeds are those envelopes; the
/// first input byte picks the channel it is posted in: DM or group). Every refusal must leave
/// the device's serialised state byte-identical; anything accepted must be exactly what the
/// peer sent (an original ciphertext with its original text, or the original distribution).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReceivingDevice(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (selector, envelope) = FuzzInput.selector(FuzzInput.bytes(data, size)) else { return 0 }
    let scenario = ReceivingDeviceFixture.scenario
    let channel = selector & 1 == 0 ? scenario.dmChannel : scenario.groupChannel
    var device = scenario.device
    let before = ReceivingDeviceFixture.serializedState
    do {
        let accepted = try device.receive(envelope, channel: channel)
        let original = scenario.originals.contains { $0.accepted == accepted && $0.channel == channel }
        PropertyCheck.require(original, "accepted something the peer never sent: \(accepted)")
    } catch {
        PropertyCheck.require(device.serializedState() == before, "a refusal (\(error)) changed the device's state")
    }
    return 0
}

/// Writes the scenario's envelopes as seeds when `FUZZ_WRITE_SEEDS` is set.
@_cdecl("LLVMFuzzerInitialize")
public func initializeReceivingDevice(_ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    let scenario = ReceivingDeviceFixture.scenario
    let seeds = scenario.originals.map { [$0.channel == scenario.dmChannel ? 0 : 1] + $0.bytes }
    do {
        try SeedWriter.write(seeds, prefix: "envelope")
    } catch {
        PropertyCheck.require(false, "cannot write seeds: \(error)")
    }
    return 0
}

/// The scenario, built once.
enum ReceivingDeviceFixture {
    static let scenario: ReceivingScenario = {
        do {
            return try ReceivingScenario()
        } catch {
            fatalError("the protocol refused its own scenario: \(error)")
        }
    }()
    static let serializedState = scenario.device.serializedState()
}

/// The program's entry (see `FuzzDriver`).
@_cdecl("fuzz_receiving_device_main")
public func fuzzReceivingDeviceMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc: argc, argv: argv, fuzzReceivingDevice)
}
