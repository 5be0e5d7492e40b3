import Foundation

/// How long the random tests of this target run, as CacheStoreTests' `Soak` (Reliability/Soak.swift):
/// `swift test` runs a short soak, so the README's test command stays quick; CI runs the full one
/// (`CACHESTORE_SOAK=1`, set by `.ci/run`). The seeds of the short soak are the first seeds of the
/// full one, so a failure replays in either.
enum Soak {
    /// Whether the environment asks for the full soak (`CACHESTORE_SOAK=1`).
    static let isFull = ProcessInfo.processInfo.environment["CACHESTORE_SOAK"] == "1"

    /// How many random effect programs the differential suite runs on a store and a test store.
    static let differentialPrograms = isFull ? 4_000 : 300
}
