import CacheStore
import CacheStoreTesting
import Testing

// The examples of the migration article (Documentation.docc/MigratingFromTheOriginalCacheStore.md).

nonisolated enum ScoreKey { case score }
enum ScoreAction { case point }
typealias ScoreHandler = StoreActionHandler<ScoreKey, ScoreAction, Void>

let scoreHandler = ScoreHandler { state, _, _ in
    state.update(.score, as: Int.self) { score in score = (score ?? 0) + 1 }
    return .none
}

final class Scoreboard {
    let store = Store(initialValues: [.score: 0], actionHandler: scoreHandler)

    var score: Int { store.get(.score, as: Int.self) ?? 0 }

    func point() { store.handle(action: .point) }
}

struct ScoreContent: StoreContent {
    let label: String

    init(store: Store<ScoreKey, Void, Void>) {
        label = "Score: \(store.get(.score, as: Int.self) ?? 0)"
    }
}

/// Just enough of the original README's feature for the step of its tests that the article quotes. The
/// tests themselves are in SeedReadmeSwift5Tests (as written) and CacheStoreTestingTests (Swift 6); this
/// step is here so that the main-actor app targets, which link this file, compile it too.
nonisolated enum OriginalKey { case isLoading }
enum OriginalAction { case fetchPosts }

@Suite(.timeLimit(.minutes(2))) struct MigrationExamples {
    @Test func anOriginalTestStepIsUnchanged() {
        let store = TestStore(
            initialValues: [:],
            actionHandler: StoreActionHandler<OriginalKey, OriginalAction, Void> { cacheStore, _, _ in
                cacheStore.set(value: true, forKey: .isLoading)
                return .none
            },
            dependency: ())
        store.send(.fetchPosts) { cacheStore in
            cacheStore.set(value: true, forKey: .isLoading)
        }
    }

    @Test func compositionReplacesSubclassing() {
        var printed: [String] = []
        let print = { (text: String) in printed.append(text) }

        let scoreboard = Scoreboard()
        scoreboard.point()
        let content = scoreboard.store.content(using: ScoreContent.self)
        print(content.label)  // Score: 1
        #expect(scoreboard.score == 1)
        #expect(printed == ["Score: 1"])
    }

    @Test func testStoreBuildsContentFromTheStoreUnderTest() {
        let store = TestStore(initialValues: [.score: 0], actionHandler: scoreHandler, dependency: ())
        store.send(.point) { $0.set(value: 1, forKey: .score) }
        store.content(using: ScoreContent.self) { content in
            #expect(content.label == "Score: 1")
        }
    }
}
