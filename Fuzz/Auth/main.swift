import CFuzzerDriver
import Foundation
@testable import ReqPlanRuntime
import ReqPlanSyntax
import ReqPlanTransport

// libFuzzer entry point: what a server (or a browser) sends the authentication flows of `auth:`, as they read it.
// The first byte chooses the reader (its value modulo 4), the rest is what they read:
// - 0, Digest (RFC 7616): `WWW-Authenticate` values, one per line, read as a 401 answer's challenges
//   (`DigestAuth.challenges(in:)`, `preferredChallenge(in:)`), and the preferred one answered for a request with a
//   body (`authorization(for:…)`);
// - 1, an OAuth 2.0 token endpoint's answer (RFC 6749 §5.1, §5.2): its second byte chooses the status (200, 201,
//   400, 401, 500 or 302), the rest is the body (`OAuthGrant.token(from:now:)`);
// - 2, the browser's redirect to the `authorization_code` grant's loopback listener: its request target
//   (`AuthorizationCode.callback(_:state:)`, and the page the listener answers with);
// - 3, a request signed with AWS Signature Version 4 (`AWSSigV4.sign`): the AWS test suite's request format
//   (`METHOD target HTTP/1.1`, `Name:value` lines, a blank line, the body), as a plan's data would build one.
// No crash, no hang. What a header line is written from holds no line break or other control character (the
// answer to a challenge, a token, every signed header); a message that quotes the server holds no C0 or C1
// control; a redirect's code is taken only with the state the run sent; a signature is the same when signed
// again. Built in debug (`@testable` reaches the listener's reader).

/// The state of the authorization request the redirects answer (43 characters, as `randomToken()` makes one).
let state = "sT4te-0f-th3-fuzz-Run_aaaaaaaaaaaaaaaaaaaaaa"
/// 2015-08-30T12:36:00Z, the AWS test suite's date.
let signingDate = Date(timeIntervalSince1970: 1_440_938_160)

func failIf(_ condition: Bool, _ message: @autoclosure () -> String) {
    if condition { fatalError(message()) }
}

/// Whether `text` holds what a header line cannot (a C0 control but tab, DEL) or a C1 control: what a one-line
/// message never may.
func hasLineControl(_ text: String) -> Bool {
    HeaderLine.forbiddenCharacter(in: text) != nil || text.unicodeScalars.contains { (0x80...0x9F).contains($0.value) }
}

func digest(_ text: String) {
    let values = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let challenges: [DigestAuth.Challenge]
    do {
        challenges = try DigestAuth.challenges(in: values)
    } catch {
        failIf(hasLineControl(error.description), "a Digest error quotes a control character: \(error.description)")
        return
    }
    let preferred: DigestAuth.Challenge
    do {
        preferred = try DigestAuth.preferredChallenge(in: values)
    } catch {
        failIf(hasLineControl(error.description), "a Digest error quotes a control character: \(error.description)")
        failIf(!challenges.isEmpty && error.kind == .noChallenge, "challenges were read, yet `noChallenge`")
        return
    }
    for user in [
        DigestAuth(username: "Mufasa", password: "Circle of Life"), DigestAuth(username: "Jäsøn", password: ""),
    ] {
        do {
            let answer = try user.authorization(
                for: preferred, method: "POST", uri: "/dir/index.html?x=1",
                cnonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ",
                nonceCount: 1, body: Array("a body".utf8))
            if let scalar = HeaderLine.forbiddenCharacter(in: answer.authorization) {
                fatalError("the Digest answer holds \(scalar.value), a header line cannot: \(answer.authorization)")
            }
            failIf(
                !answer.authorization.hasPrefix("Digest "), "the answer is not a Digest one: \(answer.authorization)")
            failIf(answer.response.count < 32, "the response digest is short: \(answer.response)")
        } catch {
            failIf(hasLineControl(error.description), "a Digest error quotes a control character: \(error.description)")
        }
    }
}

func tokenAnswer(_ bytes: ArraySlice<UInt8>) {
    guard let choice = bytes.first else { return }
    let status = [200, 201, 400, 401, 500, 302][Int(choice) % 6]
    let response = TransportResponse(
        status: status, headers: [HeaderField("Content-Type", "application/json")], body: Array(bytes.dropFirst()))
    let now = ContinuousClock.now
    switch OAuthGrant.token(from: response, now: now) {
    case .success(let token):
        failIf(!(200..<300).contains(status), "a token taken from a status-\(status) answer")
        failIf(token.value.isEmpty, "an empty token taken")
        if let scalar = HeaderLine.forbiddenCharacter(in: token.value) {
            fatalError("a token holding \(scalar.value) was taken; it goes into a header line")
        }
        if let expiresAt = token.expiresAt {
            failIf(expiresAt > now + OAuthGrant.longestLifetime, "a lifetime beyond the longest one")
            failIf(expiresAt < now + .seconds(1), "a lifetime under a second")
        }
    case .failure(let error):
        failIf(hasLineControl(error.description), "an OAuth error quotes a control character: \(error.description)")
    }
}

func redirect(_ text: String) {
    for method in ["GET", "POST"] {
        let request = LoopbackRequest(method: method, target: text)
        let callback = AuthorizationCode.callback(request, state: state)
        switch callback {
        case .code(let code):
            failIf(method != "GET", "a code taken from a \(method)")
            failIf(code.isEmpty, "an empty code taken")
            let decoded = text.split(separator: "&").map { $0.removingPercentEncoding ?? String($0) }.joined()
            failIf(!decoded.contains(state), "a code taken without the run's state: \(text)")
            // The code goes into the token request's form body, which is visible ASCII once form-encoded.
            let sent = URLEncoding.formEncode(code)
            failIf(
                sent.unicodeScalars.contains { $0.value < 0x21 || $0.value > 0x7E }, "a code form-encoded to \(sent)")
        case .refused(let error, let description):
            failIf(method != "GET", "a refusal taken from a \(method)")
            let page = AuthorizationCode.page(200, "refused (\(OAuthGrant.printable(error, limit: 64)))", ends: true)
            failIf(hasLineControl(String(page.text.dropLast())), "the page quotes a control character")
            if let description {
                failIf(hasLineControl(OAuthGrant.printable(description, limit: 200)), "a description with a control")
            }
        case .start:
            failIf(method != "GET" || text.split(separator: "?").first != "/", "`\(text)` read as the start")
        case .rejected(let why):
            failIf(hasLineControl(why), "the listener's reason quotes a control character")
        }
    }
}

/// A request in the AWS test suite's format: `METHOD target HTTP/1.1`, `Name:value` lines (a line starting with
/// a space continues the value before it), a blank line, the body.
func signed(_ text: String) {
    let (head, body): (Substring, Substring) = {
        guard let blank = text.range(of: "\n\n") else { return (Substring(text), "") }
        return (text[..<blank.lowerBound], text[blank.upperBound...])
    }()
    var lines = head.split(separator: "\n", omittingEmptySubsequences: false)
    guard !lines.isEmpty else { return }
    let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: false)
    guard requestLine.count >= 2 else { return }
    let method = String(requestLine[0])
    let target = requestLine.dropFirst().dropLast(requestLine.count > 2 ? 1 : 0).joined(separator: " ")
    var headers: [HeaderField] = []
    for line in lines {
        if line.first == " ", let last = headers.popLast() {
            headers.append(HeaderField(last.name, last.value + "\n" + line))
        } else if let colon = line.firstIndex(of: ":") {
            headers.append(HeaderField(String(line[..<colon]), String(line[line.index(after: colon)...])))
        }
    }
    let credentials = AWSSigV4.Credentials(
        accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
        sessionToken: body.hasPrefix("token") ? "AQoDYXdzEPT//////////wEXAMPLE" : nil)
    for (service, selection) in [("service", AWSSigV4.HeaderSelection.all), ("s3", .standard)] {
        let signer = AWSSigV4(service: service, region: "us-east-1", credentials: credentials)
        func sign() throws(AWSSigV4Error) -> AWSSigV4.Signature {
            try signer.sign(
                method: method, authority: "example.amazonaws.com", target: target, headers: headers,
                payload: .bytes(Array(body.utf8)), selection: selection, date: signingDate)
        }
        do {
            let signature = try sign()
            for header in signature.headers {
                if let scalar = HeaderLine.forbiddenCharacter(in: header.name + header.value) {
                    fatalError("the signed header `\(header.name)` holds \(scalar.value)")
                }
            }
            failIf(signature.signature.count != 64, "a signature of \(signature.signature.count) characters")
            failIf(try sign() != signature, "signing the same request again gave another signature")
        } catch {
            failIf(hasLineControl(error.description), "a signing error quotes a control character: \(error)")
        }
    }
}

func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    let rest = bytes.dropFirst()
    switch bytes[0] % 4 {
    case 0: digest(String(decoding: rest, as: UTF8.self))
    case 1: tokenAnswer(rest)
    case 2: redirect(String(decoding: rest, as: UTF8.self))
    default: signed(String(decoding: rest, as: UTF8.self))
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { fuzz($0, $1) })
