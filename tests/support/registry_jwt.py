"""A real token service for the test registry: ES256 JWTs that distribution 2.8's `auth: token`
verifies (the signing certificate in the `x5c` header, chained to `rootcertbundle`; claims
`iss`, `aud` = the service, `exp`/`nbf`/`iat`, and `access`), as distribution/distribution's
`docs/content/spec/auth/jwt.md` and `registry/auth/token/token.go` (v2.8.2) describe. Callers
with the good Basic credentials get the actions they ask for; anonymous callers get `pull` only.
"""

from __future__ import annotations

import base64
import datetime
import json
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

ISSUER = "xcli-test-issuer"
SERVICE = "test-registry"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Signer:
    def __init__(self, folder: Path) -> None:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID

        self.key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "xcli test token signer")])
        now = datetime.datetime.now(datetime.timezone.utc)
        cert = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(self.key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .sign(self.key, hashes.SHA256())
        )
        self.der = cert.public_bytes(serialization.Encoding.DER)
        self.bundle = folder / "token-cert.pem"
        self.bundle.write_bytes(cert.public_bytes(serialization.Encoding.PEM))

    def token(self, access: list[dict[str, Any]]) -> str:
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

        now = int(time.time())
        header = {"typ": "JWT", "alg": "ES256", "x5c": [base64.b64encode(self.der).decode()]}
        claims = {
            "iss": ISSUER, "sub": "tester", "aud": SERVICE, "exp": now + 300,
            "nbf": now - 10, "iat": now, "jti": uuid.uuid4().hex, "access": access,
        }  # fmt: skip
        signing = f"{_b64(json.dumps(header).encode())}.{_b64(json.dumps(claims).encode())}"
        der = self.key.sign(signing.encode(), ec.ECDSA(hashes.SHA256()))
        r, s = decode_dss_signature(der)
        return f"{signing}.{_b64(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"

    def answer(self, path: str, trusted: bool) -> str:
        """The token for a request to the token service: the scopes asked, pull only when the
        caller is anonymous."""
        access = []
        for scope in parse_qs(urlsplit(path).query).get("scope", []):
            kind, _, rest = scope.partition(":")
            name, _, actions = rest.rpartition(":")
            wanted = actions.split(",")
            granted = wanted if trusted else [a for a in wanted if a == "pull"]
            access.append({"type": kind, "name": name, "actions": granted})
        return self.token(access)


def config(signer: Signer, realm: str) -> dict[str, Any]:
    return {
        "token": {
            "realm": realm,
            "service": SERVICE,
            "issuer": ISSUER,
            "rootcertbundle": str(signer.bundle),
        }
    }
