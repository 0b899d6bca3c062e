import numpy as np
import pytest

from repbook.core import data


def test_repo_root_is_the_checkout():
    assert (data.repo_root() / "_toc.yml").is_file()


@pytest.fixture
def fake_root(tmp_path, monkeypatch):
    (tmp_path / "data" / "99_demo").mkdir(parents=True)
    monkeypatch.setattr(data, "repo_root", lambda: tmp_path)
    return tmp_path / "data" / "99_demo"


def test_data_file_checks_the_checksum(fake_root):
    f = fake_root / "table.csv"
    f.write_text("a,b\n1,2\n")
    (fake_root / "SHA256SUMS").write_text(f"{data.sha256(f)}  table.csv\n")
    assert data.data_file("99_demo", "table.csv") == f
    f.write_text("a,b\n1,3\n")
    with pytest.raises(data.DataError, match="checksum"):
        data.data_file("99_demo", "table.csv")
    with pytest.raises(data.DataError, match="not listed"):
        data.data_file("99_demo", "other.csv")


def test_data_file_without_sums_or_file(fake_root):
    with pytest.raises(data.DataError, match="no SHA256SUMS"):
        data.data_file("99_demo", "x")
    (fake_root / "SHA256SUMS").write_text("00  gone.csv\n")
    with pytest.raises(data.DataError, match="missing"):
        data.data_file("99_demo", "gone.csv")


def test_sklearn_sets_load_offline():
    X, y = data.load_sklearn("digits")
    assert X.shape == (1797, 64) and set(np.unique(y)) == set(range(10))
    with pytest.raises(ValueError, match="unknown scikit-learn set"):
        data.load_sklearn("imagenet")


def test_mnist5k_is_shuffled_by_seed():
    X0, y0 = data.load_mnist5k(0)
    X1, y1 = data.load_mnist5k(1)
    assert (
        X0.shape == (5000, 784)
        and X0.dtype == np.float32
        and 0 <= X0.min()
        and X0.max() <= 1
    )
    assert not np.array_equal(y0, y1) and np.array_equal(np.sort(y0), np.sort(y1))
    assert np.array_equal(data.load_mnist5k(0)[1], y0)


def test_stdlib_sources_are_sorted_python_files_without_test_suites():
    from repbook.core.data import stdlib_sources

    files = stdlib_sources()
    top = stdlib_sources(recursive=False)
    assert files == sorted(files) and top == sorted(top)
    assert all(p.suffix == ".py" for p in files + top)
    assert set(top) <= set(files) and len(files) > len(top) > 50
    assert not any({"test", "idlelib", "site-packages"} & set(p.parts) for p in files)


def test_sha256sums_in_text_and_binary_form():
    from repbook.core.data import DataError, read_sha256sums

    hexa = "a" * 64
    assert read_sha256sums(f"{hexa}  one.csv\n{hexa} *two.bin\n\n") == {
        "one.csv": hexa,
        "two.bin": hexa,
    }
    with pytest.raises(DataError, match="line 1"):
        read_sha256sums("xyz one.csv\n")


def test_sha256_is_the_file_digest(tmp_path):
    import hashlib

    from repbook.core.data import sha256

    f = tmp_path / "x.bin"
    f.write_bytes(b"hello" * 1000)
    assert sha256(f) == hashlib.sha256(b"hello" * 1000).hexdigest()
