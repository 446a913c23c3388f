import ReqPlanLanguageServer
import Testing

@Suite struct DocumentURITests {
    @Test func aFileURIIsPercentDecodedToItsPath() {
        #expect(DocumentURI("file:///home/me/my%20plans/caf%C3%A9.yaml").filePath == "/home/me/my plans/café.yaml")
        #expect(DocumentURI("file://localhost/tmp/a.yaml").filePath == "/tmp/a.yaml")
        #expect(DocumentURI("untitled:Untitled-1").filePath == nil)
    }

    @Test func aPathIsEncodedAsEditorsEncodeIt() {
        let uri = DocumentURI(filePath: "/tmp/my plans/café#1.yaml")
        #expect(uri.text == "file:///tmp/my%20plans/caf%C3%A9%231.yaml")
        #expect(uri.filePath == "/tmp/my plans/café#1.yaml")
    }

    @Test func aDocumentThatIsNotAFileIsCheckedInTheWorkingFolder() {
        #expect(DocumentURI("untitled:Untitled-1").checkedPath(inFolder: "/work") == "/work/Untitled-1")
    }
}
