// swift-tools-version: 6.2
import PackageDescription

/// The libraries' strictness: `any` spelled out on every existential, and an import for every module whose
/// members a file uses.
let strictLibrarySettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// And `Sendable` stated, or ruled out, on every public type: `-require-explicit-sendable` as a manifest
/// setting (an unsafe flag would make the package unusable as a versioned dependency; CI fails on any
/// warning).
let explicitSendable: [SwiftSetting] = [.treatWarning("ExplicitSendable", as: .warning)]

let package = Package(
    name: "CacheStore",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
    products: [
        .library(name: "CacheStore", targets: ["CacheStore"]),
        .library(name: "CacheStoreTesting", targets: ["CacheStoreTesting"]),
        .executable(name: "PostsDemo", targets: ["PostsDemo"]),
    ],
    targets: [
        .target(
            name: "CacheStore",
            dependencies: ["CacheStoreAtomics"],
            swiftSettings: strictLibrarySettings + explicitSendable
        ),
        // The atomic word of a store's turn (C11 builtins; Swift's `Atomic` needs macOS 15).
        .target(name: "CacheStoreAtomics"),
        .target(
            name: "CacheStoreTesting",
            dependencies: ["CacheStore"],
            swiftSettings: strictLibrarySettings + explicitSendable
        ),
        // Run with `swift run -c release CacheStoreBenchmarks`.
        .executableTarget(
            name: "CacheStoreBenchmarks",
            dependencies: ["CacheStore", "CacheStoreTesting", "CacheStoreBenchmarkSupport"]
        ),
        .target(name: "CacheStoreBenchmarkSupport"),
        // The terminal posts demo: the feature as a library (tested), the terminal app around it.
        .target(name: "PostsFeature", dependencies: ["CacheStore"], path: "Demo/PostsFeature"),
        .executableTarget(name: "PostsDemo", dependencies: ["CacheStore", "PostsFeature"], path: "Demo/PostsDemo"),
        .testTarget(
            name: "CacheStoreTests",
            // The memory probe, built beside the tests that run it (none measures the heap in the tests'
            // process, where the suites running beside it move it).
            dependencies: ["CacheStore", "CacheStoreMemoryProbe"]
        ),
        // Measures the heap in a process of its own for the engine's memory tests.
        .executableTarget(name: "CacheStoreMemoryProbe", dependencies: ["CacheStore", "CacheStoreBenchmarkSupport"]),
        .testTarget(name: "CacheStoreTestingTests", dependencies: ["CacheStoreTesting"]),
        // The code of README.md and of the DocC articles, compiled and run, and checked against the text: the
        // one copy of each example, which the main-actor targets below link to.
        .testTarget(name: "DocumentationExamplesTests", dependencies: ["CacheStore", "CacheStoreTesting"]),
        .testTarget(
            name: "PostsDemoTests",
            dependencies: ["PostsFeature", "PostsDemo", "CacheStoreTesting"],
            resources: [.copy("Fixtures")]
        ),
        // The same code in an app target as Xcode 26's template makes it: main-actor isolation by default,
        // with approachable concurrency. Its files are symbolic links to DocumentationExamplesTests' (one
        // copy of each example), plus the main-actor app's own tests.
        .testTarget(
            name: "MainActorAppTests",
            dependencies: ["CacheStore", "CacheStoreTesting"],
            swiftSettings: [
                .defaultIsolation(MainActor.self),
                .enableUpcomingFeature("InferIsolatedConformances"),
                .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
            ]
        ),
        // And again with main-actor isolation by default alone (approachable concurrency turned off), all
        // its files symbolic links to the two targets above.
        .testTarget(
            name: "MainActorIsolationOnlyTests",
            dependencies: ["CacheStore", "CacheStoreTesting"],
            swiftSettings: [.defaultIsolation(MainActor.self)]
        ),
        // The seed README's tests as an existing user wrote them, in Swift 5 language mode.
        .testTarget(
            name: "SeedReadmeSwift5Tests",
            dependencies: ["CacheStoreTesting"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ],
    swiftLanguageModes: [.v6]
)
