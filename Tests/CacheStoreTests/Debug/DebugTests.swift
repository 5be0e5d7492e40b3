import CacheStore
import Testing

@Suite(.timeLimit(.minutes(2))) struct DebugTests {
    func reports(for actions: [CounterAction], initialValues: [Key: Any] = [.count: 1]) -> [String] {
        let output = Recorder<String>()
        let store = Store(initialValues: initialValues, actionHandler: counterHandler).debug { output.append($0) }
        for action in actions { store.handle(action: action) }
        return output.values
    }

    @Test func anAddedKey() {
        #expect(
            reports(for: [.rename("Ada")]) == [
                """
                [CacheStore] Action: .rename("Ada")
                  + .name: "Ada"
                """
            ])
    }

    @Test func aChangedKey() {
        #expect(reports(for: [.increment]) == ["[CacheStore] Action: .increment\n  ~ .count: 1 → 2"])
    }

    @Test func aRemovedKey() {
        #expect(
            reports(for: [.replaceAll]) == [
                """
                [CacheStore] Action: .replaceAll
                  - .count (was: 1)
                  + .name: "replaced"
                """
            ])
    }

    @Test func noStateChange() {
        #expect(reports(for: [.add(0)]) == ["[CacheStore] Action: .add(0)\n  (no state change)"])
    }

    @Test func aMultiLineValueChangeIsShownAsALineDiff() {
        let long = (1...6).map { "a rather long line of text number \($0)" }
        let changed = long.enumerated().map { index, line in index == 3 ? "changed" : line }
        let output = Recorder<String>()
        let handler = StoreActionHandler<Key, CounterAction, Void> { state, _, _ in
            state.set(value: changed, forKey: .list)
            return .none
        }
        let store = Store(initialValues: [.list: long], actionHandler: handler).debug { output.append($0) }
        store.handle(action: .increment)
        #expect(
            output.values == [
                """
                [CacheStore] Action: .increment
                  ~ .list:
                      [
                        "a rather long line of text number 1",
                        "a rather long line of text number 2",
                        "a rather long line of text number 3",
                −       "a rather long line of text number 4",
                +       "changed",
                        "a rather long line of text number 5",
                        "a rather long line of text number 6"
                      ]
                """
            ])
    }
}
