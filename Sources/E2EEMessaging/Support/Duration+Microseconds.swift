/// Durations as the whole microseconds server times are counted in.
extension Duration {
    /// The span in whole microseconds.
    var microsecondCount: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
