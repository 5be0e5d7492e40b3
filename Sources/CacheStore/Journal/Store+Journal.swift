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
            // The store's engine, weakly: its release ends the recording, and `stop()` after it has nothing to detach.
            // In the store's turn (a handler that stops the recording), at once: a recording started
            // next in the same turn finds the store free.
            let detach = UncheckedSendable<() -> Void> { [weak engine] in
                guard let engine else { return }
                if engine.queue.isHandlingThread {
                    engine.observer = nil
                    return
                }
                engine.queue.perform(waiting: false) { [weak engine] in engine?.observer = nil }
            }
            let recorder: JournalRecorder<Key, Action>
            do throws(JournalError) {
                recorder = try JournalRecorder(
                    journal: journal, state: engine.state.core.allValues(observing: false), detach: detach)
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
