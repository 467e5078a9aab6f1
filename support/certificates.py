"""Certificates for the tests that reach a server over TLS with a client key pair (a Docker Engine
over tcp, as Docker's own guide makes them): a CA, a server certificate for 127.0.0.1 and a client
certificate, each signed by the CA, as PEM text."""

import datetime
import ipaddress

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


def _key():
    return ec.generate_private_key(ec.SECP256R1())


def _pem_key(key):
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def _pem(certificate):
    return certificate.public_bytes(serialization.Encoding.PEM).decode()


def _signed(subject, key, issuer, issuer_key, extensions):
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
        .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
    )
    for extension, critical in extensions:
        builder = builder.add_extension(extension, critical=critical)
    return builder.sign(issuer_key, hashes.SHA256())


def authority(name="test CA"):
    """(the CA's certificate as PEM, a function making a signed pair: (kind, name) -> (cert, key) PEM);
    `kind` is `server` (for the address `name`) or `client`."""
    ca_key = _key()
    ca = _signed(name, ca_key, name, ca_key, [(x509.BasicConstraints(ca=True, path_length=None), True)])

    def pair(kind, subject):
        key = _key()
        usage = ExtendedKeyUsageOID.SERVER_AUTH if kind == "server" else ExtendedKeyUsageOID.CLIENT_AUTH
        extensions = [(x509.ExtendedKeyUsage([usage]), False)]
        if kind == "server":
            extensions.append((x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(subject))]), False))
        return _pem(_signed(subject, key, name, ca_key, extensions)), _pem_key(key)

    return _pem(ca), pair
