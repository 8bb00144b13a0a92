@testable import E2EEMessaging
import Testing

@Suite("Receive: which pipeline calls overlap")
struct PipelineAdmissionTests {
    private func batch(_ channel: String, _ ids: Set<String>) -> AdmissionClaim {
        .batch(channelID: ChannelID(channel), messageIDs: Set(ids.map { MessageID($0) }))
    }

    @Test("batches of different channels start together; a second batch of one channel waits for the first")
    func channels() {
        var admission = PipelineAdmission<String>()
        let admitted1 = admission.tryStart(batch("a", ["1"]))
        #expect(admitted1)
        let admitted2 = admission.tryStart(batch("b", ["2"]))
        #expect(admitted2)
        let admitted3 = admission.tryStart(batch("a", ["3"]))
        #expect(!admitted3)
        admission.enqueue(batch("a", ["3"]), "a2")
        #expect(admission.finish(batch("b", ["2"])).isEmpty)
        #expect(admission.finish(batch("a", ["1"])) == ["a2"])
    }

    @Test("a batch holding a message id another running batch holds waits for it (the in-flight dedupe set)")
    func sharedIDs() {
        var admission = PipelineAdmission<String>()
        let admitted4 = admission.tryStart(batch("a", ["1", "2"]))
        #expect(admitted4)
        let admitted5 = admission.tryStart(batch("b", ["2", "9"]))
        #expect(!admitted5)
        admission.enqueue(batch("b", ["2", "9"]), "b")
        #expect(admission.finish(batch("a", ["1", "2"])) == ["b"])
        // Its ids are in flight now.
        let admitted6 = admission.tryStart(batch("c", ["9"]))
        #expect(!admitted6)
    }

    @Test("an exclusive call waits for every running batch, and calls queued after it wait for it, in order")
    func exclusive() {
        var admission = PipelineAdmission<String>()
        let admitted7 = admission.tryStart(batch("a", ["1"]))
        #expect(admitted7)
        let admitted8 = admission.tryStart(.exclusive)
        #expect(!admitted8)
        admission.enqueue(.exclusive, "exclusive")
        // Another channel would be admitted on its own, but it arrived after the exclusive call.
        let admitted9 = admission.tryStart(batch("b", ["2"]))
        #expect(!admitted9)
        admission.enqueue(batch("b", ["2"]), "b")
        admission.enqueue(batch("c", ["3"]), "c")
        #expect(admission.finish(batch("a", ["1"])) == ["exclusive"])
        #expect(admission.finish(.exclusive) == ["b", "c"])
        #expect(admission.finish(batch("b", ["2"])).isEmpty)
        #expect(admission.finish(batch("c", ["3"])).isEmpty)
        let admitted10 = admission.tryStart(.exclusive)
        #expect(admitted10)
    }

    @Test("planned sender keys hold only while no other lane of their device ran since the plan")
    func laneGenerations() {
        let generations = LaneGenerations()
        generations.bump("device-a")
        let planned = generations.snapshot()
        #expect(generations.unchanged("device-a", since: planned))
        #expect(generations.unchanged("device-b", since: planned))
        generations.bump("device-b")
        #expect(generations.unchanged("device-a", since: planned))
        #expect(!generations.unchanged("device-b", since: planned))
        generations.bump("device-a")
        #expect(!generations.unchanged("device-a", since: planned))
    }
}
