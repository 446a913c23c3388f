import Foundation
import HTTPTypes
import Hummingbird

extension DemoRoutes {
    /// Uploads (kept in memory) and downloads.
    func registerFiles(on router: Router<DemoContext>) {
        /// `POST /upload` — a `multipart/form-data` body with one file part (the part named `file`, else
        /// the first part with a filename) and any text fields. Answers 201
        /// `{"id", "url": "/files/<id>/<filename>", "name", "size", "content_type", "fields"}`.
        /// 415 for another content type, 400 for a malformed body or no file, 413 beyond 32 MiB,
        /// 507 once 512 MiB of uploads are held.
        router.post("/upload") { request, _ in
            guard Self.mediaType(of: request) == "multipart/form-data" else {
                throw HTTPError(.unsupportedMediaType, message: "expected a multipart/form-data body")
            }
            guard let boundary = request.headers[.contentType].flatMap(Multipart.boundary(inContentType:)) else {
                throw HTTPError(.badRequest, message: "the multipart Content-Type has no valid `boundary`")
            }
            let bytes = try await Self.bodyBytes(of: request, limit: Self.maximumUploadSize)
            let parts: [MultipartPart]
            do {
                parts = try Multipart.parse(bytes, boundary: boundary)
            } catch {
                throw HTTPError(.badRequest, message: "malformed multipart body: \(error)")
            }
            guard
                let filePart = parts.first(where: { $0.name == "file" && $0.filename != nil })
                    ?? parts.first(where: { $0.filename != nil })
            else { throw HTTPError(.badRequest, message: "the multipart body has no file part") }
            let fields = Self.formObject(
                parts.filter { $0.filename == nil }.map {
                    (name: $0.name, value: String(decoding: $0.body, as: UTF8.self))
                })
            let name = Self.safeFileName(filePart.filename ?? "")
            let contentType = filePart.contentType ?? "application/octet-stream"
            guard
                let file = state.storage.withLock({
                    $0.storeFile(name: name, contentType: contentType, bytes: filePart.body)
                })
            else {
                throw HTTPError(
                    .init(code: 507, reasonPhrase: "Insufficient Storage"),
                    message: "the demo server keeps at most \(DemoStore.fileStorageLimit >> 20) MiB of uploads")
            }
            let url = "/files/\(file.id)/" + Self.encodePathSegment(file.name)
            return Self.json(
                [
                    "id": .int(file.id), "url": .string(url), "name": .string(file.name),
                    "size": .int(file.bytes.count),
                    "content_type": .string(file.contentType), "fields": fields,
                ], status: .created, headers: [.location: url])
        }

        /// `GET /files/{id}/{name}` — the uploaded file's bytes with its content type; 404 when the id is
        /// unknown or the name is not the file's.
        router.get("/files/{id}/{name}") { _, context in
            let id = try Self.parameter(context, "id")
            let name = try Self.parameter(context, "name")
            guard let number = Int(id), let file = state.storage.withLock({ $0.files[number] }), file.name == name
            else {
                throw HTTPError(.notFound, message: "no file /files/\(id)/\(name)")
            }
            var headers: HTTPFields = [.contentType: file.contentType]
            headers[.contentDisposition] = "inline; filename=\"\(file.name.replacingOccurrences(of: "\"", with: "_"))\""
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
        }
    }

    /// The last path component of a client's file name, without control characters; `upload` when empty.
    static func safeFileName(_ name: String) -> String {
        let last = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        let clean = String(last.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
        return clean.isEmpty || clean == "." || clean == ".." ? "upload" : clean
    }
}
