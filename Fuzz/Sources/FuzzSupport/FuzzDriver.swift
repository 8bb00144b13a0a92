/// The signature of `LLVMFuzzerTestOneInput`.
public typealias FuzzTestOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

/// libFuzzer's entry point for programs whose `main` is not libFuzzer's own.
@_silgen_name("LLVMFuzzerRunDriver")
func llvmFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: FuzzTestOneInput) -> CInt

/// Runs libFuzzer's driver. SwiftPM links a debug executable on Linux with its `main` renamed
/// to `<module>_main` (so tests can import it), which hides libFuzzer's `main`; each target
/// defines that symbol and hands over here.
public enum FuzzDriver {
    /// Runs libFuzzer with the process arguments and `testOneInput`; returns its exit status.
    public static func run(argc: CInt, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ testOneInput: FuzzTestOneInput) -> CInt {
        var count = argc
        var arguments = argv
        return llvmFuzzerRunDriver(&count, &arguments, testOneInput)
    }
}
