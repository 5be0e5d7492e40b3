import CacheStore
import Foundation
import Observation
import Testing

#if canImport(SwiftUI)
    import SwiftUI
#endif

// The examples of the Observation article (Documentation.docc/Observation.md).

nonisolated enum ProfileKey { case name, lastSeen }

@Suite(.timeLimit(.minutes(2))) struct ObservationExamples {
    @Test func aReadTracksThatKeyOnly() {
        let profile = CacheStore<ProfileKey>(initialValues: [.name: "Ada"])
        let nameChanges = Counter()
        let print: @Sendable (String) -> Void = { _ in nameChanges.increment() }

        withObservationTracking {
            _ = profile.get(.name, as: String.self)
        } onChange: {
            print("the name will change")
        }

        profile.set(value: Date(), forKey: .lastSeen)  // not tracked: no onChange
        profile.set(value: "Grace", forKey: .name)  // tracked: onChange runs once
        #expect(nameChanges.value == 1)

        let lastSeenChanges = Counter()
        withObservationTracking {
            _ = profile.get(.name, as: String.self)
        } onChange: {
            lastSeenChanges.increment()
        }
        profile.set(value: Date(), forKey: .lastSeen)
        #expect(lastSeenChanges.value == 0)
    }

    @Test func theChangesStreamWithoutSwiftUI() async {
        let profile = CacheStore<ProfileKey>(initialValues: [.name: "Ada"])
        let printed = Counter()
        let print: @Sendable (String, String) -> Void = { _, name in if name == "Grace" { printed.increment() } }

        let log = Task {
            for await keys in profile.changes where keys.contains(.name) {
                print("name is now", profile.get(.name, as: String.self) ?? "-")
            }
        }
        defer { log.cancel() }

        #expect(
            await eventually {
                // Until the loop runs: two writes, as writing the value a key holds is no change.
                profile.set(value: "Ada", forKey: .name)
                profile.set(value: "Grace", forKey: .name)
                return printed.value > 0
            })
    }
}

#if canImport(SwiftUI)
    // Compiled where SwiftUI exists (Apple systems); on Linux this part is not built.
    nonisolated enum CounterKey { case count }
    enum CounterAction { case increment }

    struct CounterView: View {
        let store: Store<CounterKey, CounterAction, Void>

        var body: some View {
            Button("Count: \(store.get(.count, as: Int.self) ?? 0)") {
                store.handle(action: .increment)
            }
        }
    }
#endif
