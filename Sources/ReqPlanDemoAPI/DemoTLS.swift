import Hummingbird
import HummingbirdHTTP2

/// A self-signed certificate for `127.0.0.1` and `localhost`, valid until 2126, so tests can
/// exercise TLS verification (and `--insecure`) against the demo API. It protects nothing: the
/// key is public, in this file.
public enum DemoTLS {
    /// The certificate (PEM), which tests trust as a root.
    public static let certificate = """
        -----BEGIN CERTIFICATE-----
        MIIDJzCCAg+gAwIBAgIUGv28mU4YRgPL2EYMlgCX7RfU6PIwDQYJKoZIhvcNAQEL
        BQAwFDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTEyMTExMjQyNVoYDzIxMjYx
        MDI4MTEyNDI1WjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwggEiMA0GCSqGSIb3DQEB
        AQUAA4IBDwAwggEKAoIBAQD2n59wm18WoYL+e7haJCPu9hOmYX2SrpYrVmQx456L
        GZCYBi73UwWfWbdlHp2192WZH/OmWna25l4+iiZjuQe2rejqJ2QqgIE1Fv/gWpuT
        rCmTkfTJo6uVsG4DdtsWLscabzIQbjc9jInVGngBYWFMucGUttcR1YKB1el1aWU5
        Ap9S9HMDgOBPjXofhJuAI7+AoMfVAp6fZw83LkS3MgKa4FLOIACjmbrzlycGRvzy
        UJ2ieeWngNaHQvV4obVoqMvoP9os1G3Yc45x2Vzia/mgYldpFxKmz2cAkHXU+G8C
        6E0bhDVZQ53hAvTexIckpHGUZ9o6Soy+2a/fCQOkNj9HAgMBAAGjbzBtMB0GA1Ud
        DgQWBBRbisurGKqMeC9h7MenHFtXsozdiTAfBgNVHSMEGDAWgBRbisurGKqMeC9h
        7MenHFtXsozdiTAPBgNVHRMBAf8EBTADAQH/MBoGA1UdEQQTMBGHBH8AAAGCCWxv
        Y2FsaG9zdDANBgkqhkiG9w0BAQsFAAOCAQEAa13Cmrb6uDZF4A/A2JIUJlIPmQ1x
        H/el+nbIAGdMfQ8IX8optVN9X2piy39lA/dPcg5PQnVN/ebNa/5U/u/m2aoj8lrt
        meZq9FJOOVFHo5bzUuXniOd+YVEW9+0LjO5rTDb+dtWjxTJJgDVycgI06ZzPEaIg
        pJMhtakOqZuLUy49Nn+ijkoHxSsSa68henJCfmgH5iD262KxsnQXzOLaQ6XlqVLU
        myvVUZwz2o8zuXbnZKP82xRFfsrS8Vk8v0e20kMxe8iz05B6+dj8KgLb6qjZv59N
        Onc5GgUCdz3mwLt3XJgZ+Tn2clWyUrJ4MpK9VIALJw4aU/J/Dc2pX+a5/Q==
        -----END CERTIFICATE-----
        """

    static let privateKey = """
        -----BEGIN PRIVATE KEY-----
        MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQD2n59wm18WoYL+
        e7haJCPu9hOmYX2SrpYrVmQx456LGZCYBi73UwWfWbdlHp2192WZH/OmWna25l4+
        iiZjuQe2rejqJ2QqgIE1Fv/gWpuTrCmTkfTJo6uVsG4DdtsWLscabzIQbjc9jInV
        GngBYWFMucGUttcR1YKB1el1aWU5Ap9S9HMDgOBPjXofhJuAI7+AoMfVAp6fZw83
        LkS3MgKa4FLOIACjmbrzlycGRvzyUJ2ieeWngNaHQvV4obVoqMvoP9os1G3Yc45x
        2Vzia/mgYldpFxKmz2cAkHXU+G8C6E0bhDVZQ53hAvTexIckpHGUZ9o6Soy+2a/f
        CQOkNj9HAgMBAAECggEAIlufi0EMsMBEhG6OWCSDywqGN0jgBSYvGTovuubik1oM
        Plmng7Y8aMmcwUjQIOXRRia2O302il7dT1TQv1Yrixl/AtavtN9yi10OaF5HIVNm
        oWk/6Igq4y+RTAiWwhLh6Gldrf36J9LN8Eh/4nVYvacn9FoP7ACfmLXz5chj8oUz
        KG1+FMhvjuNhtp/8s0pq2ctM6qAn8yx3PACf3+KAbg2Cr53CxhuNuWZxyNCvjgeo
        /frHgfS65re6dI335QdQil2uguLlriAGuSi6LtyRX6z7kTMQAfFy++juvsAG+cQy
        vwK2wbFkBsoG94ybsjDLeGGtV9jze1qzjnAUITKXGQKBgQD9rKvuRZm5ug423nwE
        ocCzQYGsaspaP+byJauJGCPSx6P4z0NnAgAwmPNtZN2hR7Qox0vb34PbeqS3dqve
        fFFy7IFus98CVCTNJcBVMLUU6ZAK7q4yBfO8Pc2kOleQmXgszhzBtsCK4F3A6vrW
        WBPlwQYD7vX65rP4xJQGJTrf3wKBgQD44mdia0uNni+qrhltSw/86HQiRcMyo3bn
        xG5UJLc6s+UDUavmTEqhLweV0UnxsSXFk4hk2+mcGgRg47Vdj78Dz2J70AbZVwhz
        pJg7qDwjGTzIo4QJZGEcaA602FDTS6kT2hX48s6BvLgzk4hmWO1+0Lzavg6uzMqF
        a02tgdvtmQKBgHkDhoGEcnFHcMB8Im2TPHpHJbU6vI2RLnsVvV8JRQ2ob3Cib2UU
        b0K/tGDbXV8y9Z7+dBHP7vck6q8azaK1a6WHbbeB10ElIuk6uSXqtnfjc/PDKRZ0
        AHIsiY1ux5cTn2DAcrd2lyOpJRCDCGZ4XgWcr2Hw/SdUJ0blgDfuSsfBAoGBAJtN
        s9OPPmsVfYsU7prrjwNzDhzgyWhM5oLDaVEqRAfmf45tpUWk76Da1vHe0jR2JSq/
        4AmHzKNy/K51CRRkAX7gJwU5jzyJ+aUn3TLEzRndwrc0iczOjWaLbDnfDbh76vqP
        SMy6vq/oUk0kz6WF8lUC7gXVORZMhkdw6NzPPqxpAoGARrNpVMuqsgYLLsb5V+a5
        3W3Xdb8X1vOAZmW4jhQCSyGiGrLMcL6W94ceFnjaodHQGafEOuNRe+q1AsEUkHdV
        SYTaduUtYnBtbaiiWejPtee58O1Ve4gNnJcpakdlEAZft0NoSZdKPq2ILcmJEi6c
        KS2Y86t5vhTnIu9Y+Vhdv1g=
        -----END PRIVATE KEY-----
        """

    /// The server's TLS configuration (HTTP/2 and HTTP/1.1 offered through ALPN).
    public static func configuration() throws -> TLSConfiguration {
        TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(certificate.utf8), format: .pem))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(privateKey.utf8), format: .pem)))
    }
}
