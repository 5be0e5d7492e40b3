import CacheStore
import Foundation
import PostsFeature

let arguments: DemoArguments
do {
    arguments = try DemoArguments.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    StandardOutput.report("PostsDemo: \(error)\n\n\(DemoArguments.usage)")
    exit(64)
}
if arguments.help {
    do {
        try StandardOutput.write(DemoArguments.usage + "\n")
    } catch {
        StandardOutput.report("PostsDemo: cannot write the output: \(error)")
        exit(1)
    }
    exit(0)
}

if let replayFile = arguments.replayFile {
    exit(await ReplayRun.run(replayFile, once: arguments.once))
}

let client = arguments.url.map { PostsClient.live(url: $0, timeout: arguments.timeout) } ?? .sample()
let initialValues: [PostsKey: Any] = [.pageSize: 10, .source: client.sourceDescription]
let store =
    arguments.stateFolder.map {
        Store(
            initialValues: initialValues, actionHandler: appHandler, dependency: client,
            persistence: postsPersistence(folder: $0))
    } ?? Store(initialValues: initialValues, actionHandler: appHandler, dependency: client)
/// Writes the persistence errors after the first `reported` ones, one line each; returns how many
/// there are.
func reportPersistenceErrors(after reported: Int = 0) -> Int {
    let errors = store.persistenceErrors
    for error in errors.dropFirst(reported) {
        StandardOutput.report("PostsDemo: \(TerminalText.sanitized(error.description))")
    }
    return errors.count
}
let reportedAtLaunch = reportPersistenceErrors()

// Recording starts before the first action, from the state the launch restored.
let recorder: JournalRecorder<PostsKey, AppAction>?
do {
    recorder = try arguments.recordFile.map { file throws(JournalError) in
        try store.startRecording(postsJournal(file: file))
    }
} catch {
    StandardOutput.report("PostsDemo: \(TerminalText.sanitized(error.description))")
    exit(64)
}

/// Saves and closes what the session wrote, saying what could not be saved or recorded.
///
/// - Returns: 1 when the journal could not record the session as asked (the demo records every key
///   it changes, so any problem is a lost session), else 0.
func finishSession() async -> Int32 {
    await store.flush()
    _ = reportPersistenceErrors(after: reportedAtLaunch)
    recorder?.stop()
    let problems = recorder?.problems ?? []
    for problem in problems {
        StandardOutput.report("PostsDemo: the journal: \(TerminalText.sanitized(problem))")
    }
    return problems.isEmpty ? 0 : 1
}

if arguments.once || !Terminal.isInteractive {
    let status = await OnceRun.run(store)
    let journalStatus = await finishSession()
    exit(status != 0 ? status : journalStatus)
}
await InteractiveApp(store: store, source: client.sourceDescription, journalFile: arguments.recordFile).run()
exit(await finishSession())
