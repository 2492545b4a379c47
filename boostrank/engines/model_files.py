"""What the engines trust in a model file, checked before they read it.

LightGBM and XGBoost parse model files in C++ and believe the counts and indices in
them: a damaged (not merely truncated) file aborts, crashes or hangs the process
(``num_leaves=1`` → SIGABRT, ``num_tree_per_iteration=0`` → SIGFPE, ``left_child=0``
→ an endless loop in predict, XGBoost ``left_children[0]=0`` → SIGSEGV).  The checks
here parse the file in Python and refuse, with a ``ValueError`` naming the file and
the field, anything outside the structure the engine writes: counts that agree, child
indices that form one tree reached from its root, split features below the feature
count, known decision types, categorical tables in range, finite leaf values.
"""

from __future__ import annotations

import json
import math
import re

_MAX_FEATURES = 2**31 - 1
_MAX_SCORE = 1e300  # the sum of every tree's largest |leaf| stays a finite float, with room
_MAX_NODES = 2**31 - 1


class _Damaged(ValueError):
    pass


def _int(text, what, low=None, high=None) -> int:
    if not isinstance(text, str) or not re.fullmatch(r"-?\d+", text):
        raise _Damaged(f"{what} {text!r} is not an integer")
    value = int(text)
    if (low is not None and value < low) or (high is not None and value > high):
        raise _Damaged(f"{what} {value} is outside [{low}, {high}]")
    return value


def _ints(text, what, n, low=None, high=None) -> list[int]:
    parts = text.split(" ") if text else []
    if len(parts) != n:
        raise _Damaged(f"{what} has {len(parts)} values, expected {n}")
    return [_int(p, what, low, high) for p in parts]


# the number syntax LightGBM writes and its parser reads; a stray character (``11.6M32``)
# is a fatal error inside the engine's parallel tree parsing, which aborts the process
_NUMBER = re.compile(r"[-+]?((\d+\.?\d*|\.\d+)([eE][-+]?\d+)?|inf|nan)")


def _floats(text, what, n, finite=True) -> list[float]:
    parts = text.split(" ") if text else []
    if len(parts) != n:
        raise _Damaged(f"{what} has {len(parts)} values, expected {n}")
    if not all(_NUMBER.fullmatch(p) for p in parts):
        raise _Damaged(f"{what} holds a value that is not a number")
    values = [float(p) for p in parts]
    if any(math.isnan(v) or (finite and math.isinf(v)) for v in values):
        raise _Damaged(f"{what} holds NaN{' or inf' if finite else ''}")
    return values


def _one_tree(left: list[int], right: list[int], n_leaves: int, what: str) -> None:
    """Internal nodes 0 … n−2 and leaves ~0 … ~(n−1) (or −1 … −n) form one tree rooted at node 0."""
    n_internal = n_leaves - 1
    seen_node = [False] * n_internal
    seen_leaf = [False] * n_leaves
    stack = [0] if n_internal else []
    reached = 0
    while stack:
        node = stack.pop()
        if seen_node[node]:
            raise _Damaged(f"{what}: node {node} is reached twice (a cycle or a shared child)")
        seen_node[node] = True
        reached += 1
        for child in (left[node], right[node]):
            if child >= 0:
                if child >= n_internal:
                    raise _Damaged(f"{what}: child {child} of node {node} is not a node")
                stack.append(child)
            else:
                leaf = ~child
                if leaf >= n_leaves or seen_leaf[leaf]:
                    raise _Damaged(f"{what}: leaf {leaf} of node {node} is not a leaf or is reached twice")
                seen_leaf[leaf] = True
    if reached != n_internal or not all(seen_leaf):
        raise _Damaged(f"{what}: not every node and leaf hangs from the root")


_TREE_KEYS = {"num_leaves", "num_cat", "split_feature", "split_gain", "threshold", "decision_type", "left_child",
              "right_child", "leaf_value", "leaf_weight", "leaf_count", "internal_value", "internal_weight",
              "internal_count", "is_linear", "shrinkage", "cat_boundaries", "cat_threshold", "leaf_const",
              "num_features", "leaf_features", "leaf_coeff"}
_SPLIT_KEYS = ("split_feature", "threshold", "decision_type", "left_child", "right_child")


def _lightgbm_tree(block: str, index: int, n_features: int) -> float:
    """Check one ``Tree=`` block; return its largest |leaf value| (for the overflow bound)."""
    what = f"Tree={index}"
    fields = {}
    for line in block.split("\n")[1:]:
        key, sep, value = line.partition("=")
        if not sep or key not in _TREE_KEYS or key in fields:
            raise _Damaged(f"{what}: line {line[:40]!r} is not one of a tree's fields (or repeats one)")
        fields[key] = value
    get = lambda key: fields.get(key, "")  # noqa: E731
    n_leaves = _int(fields.get("num_leaves"), f"{what} num_leaves", 1, _MAX_NODES)
    n_cat = _int(fields.get("num_cat"), f"{what} num_cat", 0, _MAX_NODES)
    missing = [k for k in ("leaf_value", "shrinkage") + (_SPLIT_KEYS if n_leaves > 1 else ()) if k not in fields]
    if missing:
        raise _Damaged(f"{what} has no {', '.join(missing)}")
    leaves = _floats(get("leaf_value"), f"{what} leaf_value", n_leaves)
    _floats(get("shrinkage"), f"{what} shrinkage", 1)
    n_int = n_leaves - 1
    for key, count in (("leaf_weight", n_leaves), ("leaf_count", n_leaves), ("split_gain", n_int),
                       ("internal_value", n_int), ("internal_weight", n_int), ("internal_count", n_int)):
        if fields.get(key, "") != "" or (key in fields and count and not (n_leaves == 1 and key == "leaf_weight")):
            _floats(fields[key], f"{what} {key}", count, finite=False)
    if n_leaves == 1:
        if n_cat:
            raise _Damaged(f"{what}: a one-leaf tree with num_cat={n_cat}")
    else:
        _lightgbm_splits(get, what, n_leaves, n_cat, n_features)
    if fields.get("is_linear", "0").strip() not in ("0", ""):
        _lightgbm_linear_leaves(get, what, n_leaves, n_features)
        # the coefficients' part depends on x: LambdaRanker.predict checks its scores
        return max(abs(v) for v in leaves + _floats(get("leaf_const"), "", n_leaves))
    return max(abs(v) for v in leaves)


def _lightgbm_splits(get, what: str, n_leaves: int, n_cat: int, n_features: int) -> None:
    """A tree's split arrays: features and children in range, one tree, categorical splits and tables agreeing."""
    n_int = n_leaves - 1
    _ints(get("split_feature"), f"{what} split_feature", n_int, 0, n_features - 1)
    decision = _ints(get("decision_type"), f"{what} decision_type", n_int, 0, 15)
    if any((d >> 2) & 3 == 3 for d in decision):
        raise _Damaged(f"{what} decision_type has an unknown missing-value type")
    thresholds = _floats(get("threshold"), f"{what} threshold", n_int, finite=False)
    left = _ints(get("left_child"), f"{what} left_child", n_int, -n_leaves, n_int - 1)
    right = _ints(get("right_child"), f"{what} right_child", n_int, -n_leaves, n_int - 1)
    _one_tree(left, right, n_leaves, what)
    categorical = [i for i, d in enumerate(decision) if d & 1]
    if len(categorical) != n_cat:
        raise _Damaged(f"{what}: {len(categorical)} categorical splits but num_cat={n_cat}")
    if n_cat:
        bounds = _ints(get("cat_boundaries"), f"{what} cat_boundaries", n_cat + 1, 0, _MAX_NODES)
        if bounds[0] != 0 or any(b < a for a, b in zip(bounds, bounds[1:])):
            raise _Damaged(f"{what} cat_boundaries do not rise from 0")
        _ints(get("cat_threshold"), f"{what} cat_threshold", bounds[-1], 0, 2**32 - 1)
        for i in categorical:
            t = thresholds[i]
            if not (t == int(t) and 0 <= t < n_cat):
                raise _Damaged(f"{what}: categorical split {i} names category table {t}")


def _lightgbm_linear_leaves(get, what: str, n_leaves: int, n_features: int) -> None:
    """A linear tree's leaf models: counts, constants, and features and coefficients laid out leaf by leaf."""
    counts = _ints(get("num_features"), f"{what} num_features", n_leaves, 0, n_features)
    _floats(get("leaf_const"), f"{what} leaf_const", n_leaves)
    for key in ("leaf_features", "leaf_coeff"):
        tokens = get(key).split()
        if len(tokens) != sum(counts):
            raise _Damaged(f"{what} {key} has {len(tokens)} values, expected {sum(counts)}")
        # LightGBM writes each leaf's values followed by one space, then one more space
        at, layout = 0, []
        for c in counts:
            layout.append("".join(t + " " for t in tokens[at:at + c]) + " ")
            at += c
        if "".join(layout) != get(key):
            raise _Damaged(f"{what} {key} is not laid out one leaf after another")
        if key == "leaf_features":
            _ints(" ".join(tokens), f"{what} {key}", len(tokens), 0, n_features - 1)
        else:
            _floats(" ".join(tokens), f"{what} {key}", len(tokens))


_OBJECTIVE = re.compile(r"[a-z_]+( [a-z_]+:[-+0-9.eE]+)*")


_PARAMETER = re.compile(r"\[[a-z0-9_]+: [^\n]*\]|")


def _check_lightgbm(raw: bytes) -> int:
    text = _lightgbm_text(raw)
    first = text.find("\nTree=")
    end = text.find("\nend of trees")
    if first < 0 or end < first:
        raise _Damaged("truncated or damaged (no complete tree section)")
    header = {}
    for line in text[:first].split("\n")[1:]:
        key, sep, value = line.partition("=")
        if sep:
            header[key] = value
    n_features, per_iteration = _lightgbm_header(header)
    if "tree_sizes" not in header:
        raise _Damaged("no tree_sizes line")
    sizes = [_int(v, "tree_sizes", 1) for v in header["tree_sizes"].split()]
    end = raw.find(b"\nend of trees")  # tree_sizes count bytes, not characters
    starts = [m.start() + 1 for m in re.finditer(rb"\nTree=", raw[:end + 1])]
    if len(starts) != len(sizes) or len(starts) % per_iteration:
        raise _Damaged(f"{len(starts)} trees but {len(sizes)} tree_sizes (and {per_iteration} per iteration)")
    largest = 0.0
    for i, (start, size, stop) in enumerate(zip(starts, sizes, starts[1:] + [end + 1])):
        if stop - start != size:
            raise _Damaged(f"tree_sizes says Tree={i} has {size} bytes; it has {stop - start}")
        block = raw[start:stop].decode("utf-8", errors="replace").strip("\n")
        if not block.startswith(f"Tree={i}\n"):
            raise _Damaged(f"tree {i} is labelled {block.split(chr(10), 1)[0]!r}")
        largest += _lightgbm_tree(block, i, n_features)
    if largest > _MAX_SCORE:
        raise _Damaged(f"its leaf values add up to {largest:.3g}: scores would overflow")
    if "\nparameters:" in text:
        section, ends, _ = text.partition("\nparameters:\n")[2].partition("\nend of parameters")
        if not ends:
            raise _Damaged("truncated (the parameters section does not end)")
        for line in section.split("\n"):
            if not _PARAMETER.fullmatch(line):
                raise _Damaged(f"parameter line {line[:60]!r} is not '[name: value]'")
    return per_iteration


def _lightgbm_text(raw: bytes) -> str:
    """The file as text, if it is an unaltered LightGBM text model (UTF-8, no NUL, line ends as written)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _Damaged(f"byte {exc.start} is not UTF-8") from None
    if not text.startswith("tree\n"):
        raise _Damaged("not a LightGBM text model")
    if "\x00" in text:
        raise _Damaged("holds a NUL byte")
    if "\r" in text:
        raise _Damaged("its line ends were changed (CR found), so the tree_sizes byte counts no longer hold")
    return text


def _lightgbm_header(header: dict) -> tuple[int, int]:
    """(features, trees per iteration) from the header, its counts, names and objective line checked."""
    n_features = _int(header.get("max_feature_idx"), "max_feature_idx", 0, _MAX_FEATURES - 1) + 1
    n_class = _int(header.get("num_class"), "num_class", 1, 2**20)
    per_iteration = _int(header.get("num_tree_per_iteration"), "num_tree_per_iteration", 1, 2**20)
    _int(header.get("label_index", "0"), "label_index", 0, _MAX_FEATURES)
    if per_iteration != n_class:  # LightGBM predicts num_class outputs and fills num_tree_per_iteration
        raise _Damaged(f"num_tree_per_iteration={per_iteration} with num_class={n_class}")
    for key in ("feature_names", "feature_infos"):
        if key in header and len(header[key].split()) != n_features:
            raise _Damaged(f"{key} has {len(header[key].split())} entries for {n_features} features")
    objective = header.get("objective")
    if objective is not None:
        if not _OBJECTIVE.fullmatch(objective):
            raise _Damaged(f"objective {objective[:80]!r} is not a LightGBM objective line")
        klass = re.search(r"num_class:(\S+)", objective)
        if klass and _int(klass.group(1), "objective num_class", 1, 2**20) != n_class:
            raise _Damaged(f"objective {objective!r} disagrees with num_class={n_class}")
    return n_features, per_iteration


def check_lightgbm_model_file(path) -> int:
    """Refuse a truncated or damaged LightGBM text model before LightGBM's loader sees it.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    int
        Outputs per row (trees per iteration): 1 for a ranking or binary model.

    Raises
    ------
    ValueError
        Naming the file and the first field that is not what LightGBM writes.
    """
    return _checked(path, _check_lightgbm, "LightGBM")


def _list(tree, key, n, what):
    values = tree.get(key)
    if not isinstance(values, list) or len(values) != n:
        raise _Damaged(f"{what} {key} is not a list of {n}")
    return values


def _ints_in(values, key, low, high, what):
    if not all(isinstance(v, int) and not isinstance(v, bool) and low <= v <= high for v in values):
        raise _Damaged(f"{what} {key} holds a value outside [{low}, {high}]")


def _xgboost_tree(tree, index: int, n_features: int) -> float:
    what = f"tree {index}"
    if not isinstance(tree, dict) or not isinstance(tree.get("tree_param"), dict):
        raise _Damaged(f"{what} has no tree_param")
    param = tree["tree_param"]
    n = _int(param.get("num_nodes"), f"{what} num_nodes", 1, _MAX_NODES)
    if _int(param.get("size_leaf_vector", "1"), f"{what} size_leaf_vector", 0, 1) > 1:
        raise _Damaged(f"{what}: vector leaves")
    left = _list(tree, "left_children", n, what)
    right = _list(tree, "right_children", n, what)
    split = _list(tree, "split_indices", n, what)
    cond = _list(tree, "split_conditions", n, what)
    kind = _list(tree, "split_type", n, what)
    default = _list(tree, "default_left", n, what)
    parents = _list(tree, "parents", n, what)
    for key, values in (("left_children", left), ("right_children", right), ("parents", parents)):
        _ints_in(values, key, -1, 2**31 - 1, what)
    _ints_in(kind, "split_type", 0, 1, what)
    _ints_in(default, "default_left", 0, 1, what)
    _ints_in(split, "split_indices", 0, 2**31 - 1, what)
    for key in ("split_conditions", "base_weights", "loss_changes", "sum_hessian"):
        values = cond if key == "split_conditions" else tree.get(key, [0.0] * n)
        if not isinstance(values, list) or len(values) != n or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values):
            raise _Damaged(f"{what} {key} is not {n} finite numbers")
    _xgboost_one_tree(left, right, split, parents, n_features, what)
    largest = max(abs(cond[i]) for i in range(n) if left[i] == -1)
    cat_nodes = tree.get("categories_nodes", [])
    if any(kind) or cat_nodes:
        _xgboost_categories(tree, kind, cat_nodes, what)
    return largest


def _xgboost_one_tree(left, right, split, parents, n_features: int, what: str) -> None:
    """Every node hangs from the root once, has two children or none, and splits on a feature of the model."""
    n = len(left)
    seen = [False] * n
    stack, reached = [0], 0
    while stack:
        node = stack.pop()
        if seen[node]:
            raise _Damaged(f"{what}: node {node} is reached twice (a cycle or a shared child)")
        seen[node] = True
        reached += 1
        a, b = left[node], right[node]
        if (a == -1) != (b == -1):
            raise _Damaged(f"{what}: node {node} has one child")
        if a == -1:
            continue
        if not (0 < a < n and 0 < b < n):
            raise _Damaged(f"{what}: a child of node {node} is not a node")
        if not 0 <= split[node] < n_features:
            raise _Damaged(f"{what}: node {node} splits on feature {split[node]} of {n_features}")
        if parents[a] != node or parents[b] != node:
            raise _Damaged(f"{what}: the parents of node {node}'s children disagree")
        stack += [a, b]
    if reached != n:
        raise _Damaged(f"{what}: {n - reached} of {n} nodes do not hang from the root")


def _xgboost_categories(tree: dict, kind, cat_nodes, what: str) -> None:
    """The categorical tables: equal lengths, indices within the table, nodes matching the split types."""
    n = len(kind)
    categories = tree.get("categories", [])
    segments, sizes = tree.get("categories_segments", []), tree.get("categories_sizes", [])
    if not all(isinstance(v, list) for v in (categories, cat_nodes, segments, sizes)) or \
            not len(cat_nodes) == len(segments) == len(sizes):
        raise _Damaged(f"{what}: categorical tables of different lengths")
    _ints_in(cat_nodes, "categories_nodes", 0, n - 1, what)
    _ints_in(segments, "categories_segments", 0, len(categories), what)
    _ints_in(sizes, "categories_sizes", 0, len(categories), what)
    _ints_in(categories, "categories", 0, 2**31 - 1, what)
    if any(s + z > len(categories) for s, z in zip(segments, sizes)):
        raise _Damaged(f"{what}: a category segment runs past the category table")
    if sorted(cat_nodes) != [i for i in range(n) if kind[i] == 1]:
        raise _Damaged(f"{what}: categorical nodes and split types disagree")


_UBJ_SCALARS = {b"i": (1, "b"), b"U": (1, "B"), b"I": (2, "h"), b"l": (4, "i"), b"L": (8, "q"),
                b"d": (4, "f"), b"D": (8, "d")}
_UBJ_MAX_DEPTH = 64


def read_ubjson(raw: bytes):
    """Decode Universal Binary JSON (what XGBoost writes for ``.ubj`` and every suffix but ``.json``).

    The draft-12 subset XGBoost's ``UBJWriter`` emits (``src/common/json.cc``): big-endian
    ``i U I l L d D`` numbers, ``S``/``C`` strings, ``T F Z N``, and objects and arrays with
    the optional ``$type`` and ``#count`` markers.  Raises ``ValueError`` on anything else,
    on truncation, on counts past the data and on nesting deeper than 64.
    """
    reader = _UBJReader(raw)
    doc = reader.value(reader.take(1), 0)
    if reader.pos != len(raw):
        raise ValueError(f"{len(raw) - reader.pos} bytes after the document")
    return doc


class _UBJReader:
    """A cursor over UBJSON bytes: :func:`read_ubjson`'s recursive descent."""

    def __init__(self, raw: bytes):
        self.raw = raw
        self.pos = 0

    def take(self, k: int) -> bytes:
        if k < 0 or self.pos + k > len(self.raw):
            raise ValueError("truncated")
        out = self.raw[self.pos:self.pos + k]
        self.pos += k
        return out

    def peek(self) -> bytes:
        return self.raw[self.pos:self.pos + 1]

    def number(self, marker: bytes):
        import struct

        size, fmt = _UBJ_SCALARS[marker]
        return struct.unpack(">" + fmt, self.take(size))[0]

    def length(self) -> int:
        marker = self.take(1)
        if marker not in (b"i", b"U", b"I", b"l", b"L"):
            raise ValueError(f"a length of type {marker!r}")
        k = self.number(marker)
        if k < 0:
            raise ValueError("a negative length")
        return k

    def value(self, marker: bytes, depth: int):
        if marker in _UBJ_SCALARS:
            return self.number(marker)
        if marker == b"S":
            return self.take(self.length()).decode("utf-8")
        if marker == b"C":
            return self.take(1).decode("ascii")
        if marker in (b"T", b"F", b"Z"):
            return {b"T": True, b"F": False, b"Z": None}[marker]
        if marker in (b"[", b"{"):
            if depth > _UBJ_MAX_DEPTH:
                raise ValueError("nested too deep")
            return self.container(marker == b"{", depth + 1)
        raise ValueError(f"unknown marker {marker!r}")

    def header(self, is_object: bool):
        """A container's optional ``$type`` and ``#count``: (type or None, count or None)."""
        typ = count = None
        if self.peek() == b"$":
            self.take(1)
            typ = self.take(1)
            if self.take(1) != b"#":
                raise ValueError("a typed container without a count")
            count = self.length()
        elif self.peek() == b"#":
            self.take(1)
            count = self.length()
        # what the items take at the least: a typed number its size, anything else a byte, and in an object a key
        # of two bytes more; a T, F or Z typed array's items take none, and are held to a byte each all the same
        # (XGBoost writes none), so that no count makes the reader build more items than the file has bytes
        if count is not None:
            item = _UBJ_SCALARS[typ][0] if typ in _UBJ_SCALARS else 1
            if count * (item + (2 if is_object else 0)) > len(self.raw) - self.pos:
                raise ValueError(f"a count of {count} past the end of the data")
        return typ, count

    def container(self, is_object: bool, depth: int):
        typ, count = self.header(is_object)
        out = {} if is_object else []
        close = b"}" if is_object else b"]"
        k = 0
        while count is None or k < count:
            if count is None and self.peek() == close:
                self.take(1)
                return out
            key = self.take(self.length()).decode("utf-8") if is_object else None
            item = self.value(typ if typ is not None else self.take(1), depth)
            if is_object:
                out[key] = item
            else:
                out.append(item)
            k += 1
        return out


def _check_xgboost(raw: bytes) -> int:
    learner = _xgboost_document(raw).get("learner")
    if not isinstance(learner, dict):
        raise _Damaged("no learner")
    n_features, outputs, base = _xgboost_params(learner)
    booster = learner.get("gradient_booster")
    if not isinstance(booster, dict) or booster.get("name") not in ("gbtree", "dart"):
        raise _Damaged("gradient_booster is not gbtree or dart")
    model = booster.get("model") if booster["name"] == "gbtree" else booster.get("gbtree", {}).get("model")
    if not isinstance(model, dict) or not isinstance(model.get("gbtree_model_param"), dict):
        raise _Damaged("no tree model")
    trees = _xgboost_trees(model, outputs)
    weights = [1.0] * len(trees)
    if booster["name"] == "dart":
        weights = booster.get("weight_drop")
        if not isinstance(weights, list) or len(weights) != len(trees) or \
                not all(isinstance(w, (int, float)) and math.isfinite(w) for w in weights):
            raise _Damaged("weight_drop does not hold one finite weight per tree")
    largest = max(abs(float(v)) for v in base.split(","))
    for i, tree in enumerate(trees):
        largest += abs(weights[i]) * _xgboost_tree(tree, i, max(n_features, 1))
        if tree.get("id") != i:
            raise _Damaged(f"tree {i} has id {tree.get('id')!r}")
    if largest > _MAX_SCORE:
        raise _Damaged(f"its leaf values add up to {largest:.3g}: scores would overflow")
    return outputs


def _xgboost_document(raw: bytes) -> dict:
    """The model file as a document: JSON, else (XGBoost's other suffixes) UBJSON."""
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        if not raw.startswith(b"{") or raw[1:2] not in (b"i", b"U", b"I", b"l", b"L", b"}", b"$", b"#"):
            raise _Damaged(f"not valid JSON ({type(exc).__name__})") from None
        try:  # XGBoost writes UBJSON for every suffix but .json (model.txt, .ubj, .bin, .model)
            doc = read_ubjson(raw)
        except (ValueError, UnicodeDecodeError, OverflowError, MemoryError) as ubj:
            raise _Damaged(f"neither valid JSON nor valid UBJSON ({ubj})") from None
    if not isinstance(doc, dict):
        raise _Damaged("no learner")
    return doc


def _xgboost_params(learner: dict) -> tuple[int, int, str]:
    """(features, outputs per row, base_score text) of the learner, each checked."""
    param = learner.get("learner_model_param")
    if not isinstance(param, dict):
        raise _Damaged("no learner_model_param")
    n_features = _int(param.get("num_feature"), "num_feature", 0, _MAX_FEATURES)
    n_class = _int(param.get("num_class", "0"), "num_class", 0, 2**20)
    n_target = _int(param.get("num_target", "1"), "num_target", 1, 2**20)
    base = str(param.get("base_score", "0")).strip("[]")
    try:
        if not all(math.isfinite(float(v)) for v in base.split(",")):
            raise ValueError
    except ValueError:
        raise _Damaged(f"base_score {param.get('base_score')!r} is not a finite number") from None
    for key in ("feature_names", "feature_types"):
        names = learner.get(key, [])
        if not isinstance(names, list) or (names and len(names) != n_features):
            raise _Damaged(f"{key} has {len(names) if isinstance(names, list) else '?'} entries for "
                           f"{n_features} features")
    return n_features, max(n_class, 1) * n_target, base


def _xgboost_trees(model: dict, outputs: int) -> list:
    """The model's trees, after checking their count, their outputs and the rounds' index."""
    trees = model.get("trees")
    n_trees = _int(model["gbtree_model_param"].get("num_trees"), "num_trees", 0, _MAX_NODES)
    _int(model["gbtree_model_param"].get("num_parallel_tree", "1"), "num_parallel_tree", 1, 2**20)
    if not isinstance(trees, list) or len(trees) != n_trees:
        raise _Damaged(f"num_trees={n_trees} but {len(trees) if isinstance(trees, list) else 'no'} trees")
    info = model.get("tree_info")
    if not isinstance(info, list) or len(info) != n_trees:
        raise _Damaged("tree_info does not list every tree")
    _ints_in(info, "tree_info", 0, outputs - 1, "the model")
    indptr = model.get("iteration_indptr")
    if indptr is not None:
        if not isinstance(indptr, list) or not indptr or indptr[0] != 0 or indptr[-1] != n_trees:
            raise _Damaged("iteration_indptr does not run from 0 to the number of trees")
        _ints_in(indptr, "iteration_indptr", 0, n_trees, "the model")
        if any(b < a for a, b in zip(indptr, indptr[1:])):
            raise _Damaged("iteration_indptr decreases")
    return trees


def check_xgboost_model_file(path) -> int:
    """Refuse a damaged XGBoost JSON model before XGBoost's loader sees it.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    int
        Outputs per row (classes × targets): 1 for a ranking or binary model.

    Raises
    ------
    ValueError
        Naming the file and the first field that is not what XGBoost writes.
    """
    return _checked(path, _check_xgboost, "XGBoost")


def _checked(path, check, engine: str) -> int:
    with open(path, "rb") as fh:
        raw = fh.read()
    try:
        return check(raw)
    except _Damaged as exc:
        raise ValueError(f"{path}: damaged {engine} model file: {exc}") from None
