import CacheStoreAtomics

extension Store where Action: Codable {
    /// Starts recording every action the store handles to `journal`'s file, from the state it holds
    /// now.
    ///
    /// ```swift
    /// let recorder = try store.startRecording(
    ///     Journal<PostsKey, PostsAction>(file: sessionURL).recording(.posts).recording(.query))
    /// ```
    ///
    /// The file is made, or replaced, with a header and a checkpoint of the recorded keys; from then
    /// on each action is appended in the store's turn, before `handle(action:)` returns. A store records
    /// one journal at a time, and a test store's store records none.
    ///
    /// - Parameter journal: What to record, and where.
    /// - Returns: The recording: ``JournalRecorder/stop()`` ends it, and so does the store's release.
    /// - Throws: ``JournalError`` when the file cannot be made or a recorded key's value cannot be
    ///   encoded; nothing is recorded then.
    public func startRecording(_ journal: Journal<Key, Action>) throws(JournalError) -> JournalRecorder<Key, Action> {
        let result = inTurn { () -> Result<JournalRecorder<Key, Action>, JournalError> in
            precondition(
                engine.observer == nil,
                "Store.startRecording: this store already records a journal, or is a test store's store")
            // Runs a recording's end in the store's turn, so that each action handled before it is
            // recorded, then takes the recorder off the store. From inside the store's turn (a handler
            // that stops the recording), or another store's (which never waits), now. The engine is
            // held weakly: its release ends the recording.
            let endInTurn = UncheckedSendable<(@escaping () -> Void) -> Void> { [weak engine] end in
                guard let engine else { return end() }
                if engine.queue.isHandlingThread {
                    end()
                    engine.observer = nil
                    return
                }
                if cachestore_holds_turn() {
                    end()
                    return engine.queue.perform(waiting: false) { [weak engine] in engine?.observer = nil }
                }
                engine.queue.perform(waiting: true) { [weak engine] in
                    end()
                    engine?.observer = nil
                }
            }
            let recorder: JournalRecorder<Key, Action>
            do throws(JournalError) {
                recorder = try JournalRecorder(
                    journal: journal, state: engine.state.core.allValues(observing: false), endInTurn: endInTurn)
            } catch {
                return .failure(error)
            }
            let attachment = JournalAttachment(recorder)
            engine.observer = ActionObserver { observed in attachment.recorder.record(observed) }
            return .success(recorder)
        }
        return try result.get()
    }
}

/// A recording's hold on the store that records: the store's observer keeps it, so that the
/// store's release (or the recording's detaching) ends the recording even while its caller still
/// holds the recorder.
final class JournalAttachment<Key: Hashable & SendableMetatype, Action: Codable> {
    let recorder: JournalRecorder<Key, Action>

    init(_ recorder: JournalRecorder<Key, Action>) {
        self.recorder = recorder
    }

    deinit {
        recorder.finish()
    }
}
