import Foundation

/// How long the random and stress tests run.
///
/// `swift test` runs a short soak, so the README's test command stays quick: 3 seeds of 1,000 random
/// steps for each model-based suite, and 5,000 actions per stress thread. CI runs the full soak
/// (`CACHESTORE_SOAK=1`, set by `.ci/run`): 20 seeds of 10,000 steps, and 50,000 actions per thread.
/// The seeds of the short soak are the first seeds of the full one, so a failure replays in either.
enum Soak {
    /// Whether the environment asks for the full soak (`CACHESTORE_SOAK=1`).
    static let isFull = ProcessInfo.processInfo.environment["CACHESTORE_SOAK"] == "1"

    /// How many seeds each model-based suite runs.
    static let seedCount = isFull ? 20 : 3

    /// How many random steps one seed runs.
    static let modelSteps = isFull ? 10_000 : 1_000

    /// How many actions each stress thread sends.
    static let stressActionsPerThread = isFull ? 50_000 : 5_000
}
