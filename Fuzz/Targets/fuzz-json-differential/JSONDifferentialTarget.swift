@testable import E2EECrypto
import Foundation
import FuzzSupport

/// Differential: the strict payload parser (`StrictJSONParser`, internal: `@testable import`)
/// against Foundation's `JSONSerialization` on every input both accept. They must read the
/// same value: same kinds, same strings (by code point), same numbers, same members.
/// Foundation folds canonically equivalent keys into one; such objects are not compared, and it
/// drops some raw U+FEFF characters inside strings, which are compared without them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONDifferential(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzInput.bytes(data, size)
    guard let strict = try? StrictJSONParser.parse(bytes),
          let foundation = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
    else { return 0 }
    PropertyCheck.require(JSONAgreement.same(strict, foundation), "the strict parser and Foundation read different values")
    return 0
}

/// Whether a strict value and a Foundation value are the same JSON value.
enum JSONAgreement {
    static func same(_ strict: StrictJSON, _ other: Any) -> Bool {
        switch strict {
        case .null:
            return other is NSNull
        case .bool(let value):
            guard let number = other as? NSNumber, isBoolean(number) else { return false }
            return number.boolValue == value
        case .string(let value):
            guard let string = other as? String else { return false }
            if value.unicodeScalars.elementsEqual(string.unicodeScalars) { return true }
            // Foundation on Linux drops a raw U+FEFF that starts a string or follows an escape
            // (first campaign; the strict parser, like RFC 8259, keeps it): not compared further.
            return value.unicodeScalars.contains("\u{FEFF}") && withoutBOM(value) == withoutBOM(string)
        case .number(let text):
            guard let number = other as? NSNumber, !isBoolean(number), let expected = Double(text) else { return false }
            // Beyond Double's range the two may round differently (or to infinity): not compared.
            guard expected.isFinite, abs(expected) < 1e300 else { return true }
            if let decimal = other as? NSDecimalNumber {
                // Foundation reads long numbers as a 38-digit decimal whose `doubleValue` can be off
                // by a few ulps (second campaign: a 144-digit integer, 1.1e-15 apart), so the text is
                // read as a decimal the same way and compared exactly; the double check stays.
                if let read = Decimal(string: text), read == decimal.decimalValue { return true }
                return sameNumber(expected, decimal.doubleValue)
            }
            return sameNumber(expected, number.doubleValue)
        case .array(let elements):
            guard let array = other as? [Any], array.count == elements.count else { return false }
            return zip(elements, array).allSatisfy { same($0, $1) }
        case .object(let members):
            guard let object = other as? [String: Any] else { return false }
            // Keys are compared without U+FEFF too (Foundation drops it there as well).
            let keys = members.map { withoutBOM($0.key) }
            // Canonically equivalent keys are one key to Foundation: such objects are skipped.
            guard Set(keys.map { String(String.UnicodeScalarView($0)) }).count == members.count else { return true }
            guard object.count == members.count else { return false }
            let foundation = Dictionary(object.map { (withoutBOM($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
            return zip(keys, members).allSatisfy { key, member in foundation[key].map { same(member.value, $0) } ?? false }
        }
    }

    /// The text without U+FEFF, compared by code points (a `String` compares canonically).
    private static func withoutBOM(_ text: String) -> [Unicode.Scalar] {
        text.unicodeScalars.filter { $0 != "\u{FEFF}" }
    }

    private static func sameNumber(_ lhs: Double, _ rhs: Double) -> Bool {
        lhs == rhs || abs(lhs - rhs) <= abs(lhs) * 1e-15
    }

    private static func isBoolean(_ number: NSNumber) -> Bool {
        #if canImport(Darwin)
        return CFGetTypeID(number) == CFBooleanGetTypeID()
        #else
        return number === NSNumber(value: true) || number === NSNumber(value: false) || String(cString: number.objCType) == "c"
        #endif
    }
}

/// The program's entry (see `FuzzDriver`).
@_cdecl("fuzz_json_differential_main")
public func fuzzJSONDifferentialMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc: argc, argv: argv, fuzzJSONDifferential)
}
