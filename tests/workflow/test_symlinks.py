"""Symbolic links never take docform outside a directory: export does not write through them
(export/writer.py) and the loader does not read manifest files that link outside
(manifest/sources.py); ``{file: PATH}`` secrets already stay inside (manifest/values.py)."""

from __future__ import annotations

from pathlib import Path

from test_export import export, rich  # noqa: F401 - the module's sandbox fixture

from planning import plan_json, run, write_manifests

ORG_ONLY = "organization: {id: org_acme}\n"


def test_export_force_does_not_overwrite_a_file_a_link_points_at(rich: Path, tmp_path: Path):  # noqa: F811
    outside = tmp_path / "precious.yaml"
    outside.write_text("mine\n")
    out = tmp_path / "repo"
    out.mkdir()
    (out / "teams.yaml").symlink_to(outside)

    result = export(rich, out, "--force")

    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {out / 'teams.yaml'} is a symbolic link to {outside} (outside {out}); export "
        "never writes through a link: remove the link, or export into another directory\n"
    )
    assert outside.read_text() == "mine\n"


def test_export_force_does_not_write_into_a_folder_a_link_points_at(rich: Path, tmp_path: Path):  # noqa: F811
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "repo"
    out.mkdir()
    (out / "certs").symlink_to(elsewhere, target_is_directory=True)

    result = export(rich, out, "--force")

    assert result.exit_code == 1
    assert f"Error: {out / 'certs'} is a symbolic link to {elsewhere} (outside {out})" in (
        result.stderr
    )
    assert list(elsewhere.iterdir()) == []
    assert not (out / "teams.yaml").exists()


def test_a_manifest_file_linking_outside_the_directory_is_never_read(tmp_path, sandbox):
    secret = tmp_path / "environ.yaml"
    secret.write_text("teams:\n  leaked: {title: SECRET_VALUE_123}\n")
    manifests = write_manifests(tmp_path / "m", ORG_ONLY)
    (manifests / "more.yaml").symlink_to(secret)

    result = run(["plan", manifests], sandbox)

    assert result.exit_code == 1
    assert (
        f"more.yaml:1:1: is a symbolic link to {secret}, outside the manifest directory; "
        "docform never reads through such a link: copy the file in, or remove the link"
    ) in result.stderr
    assert "SECRET_VALUE_123" not in result.output


def test_a_manifest_file_linking_inside_the_directory_is_read(tmp_path, sandbox):
    manifests = write_manifests(tmp_path / "m", ORG_ONLY)
    write_manifests(manifests / ".shared", "teams:\n  platform: {title: Platform}\n", "t.yaml")
    (manifests / "teams.yaml").symlink_to(manifests / ".shared" / "t.yaml")

    plan = plan_json(manifests, sandbox)

    assert [c["address"] for c in plan["changes"]] == ["team.platform"]


def test_a_secret_file_linking_outside_the_directory_is_refused(tmp_path, sandbox):
    outside = tmp_path / "cert.pem"
    outside.write_text("-----BEGIN CERTIFICATE-----\nMIIBoutside\n-----END CERTIFICATE-----\n")
    manifests = write_manifests(
        tmp_path / "m", ORG_ONLY + "saml:\n  okta: {label: Okta, certificate: {file: cert.pem}}\n"
    )
    (manifests / "cert.pem").symlink_to(outside)

    result = run(["plan", manifests], sandbox)

    assert result.exit_code == 1
    assert "file 'cert.pem' is outside the manifest directory" in result.stderr
    assert "MIIBoutside" not in result.output


def test_discovery_of_several_organizations_skips_links_outside(tmp_path, sandbox):
    root = tmp_path / "orgs"
    write_manifests(root / "acme", ORG_ONLY)
    write_manifests(root / "other", "organization: {id: org_other}\n")
    outside = tmp_path / "stray.yaml"
    outside.write_text("organization: {id: org_third}\n")
    (root / "acme" / "stray.yaml").symlink_to(outside)

    result = run(["plan", root], sandbox)

    assert "org_third" not in result.output
    assert result.exit_code == 1
    assert f"stray.yaml:1:1: is a symbolic link to {outside}, outside the manifest" in (
        result.output
    )
