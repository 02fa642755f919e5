#!/usr/bin/env python3
"""gen_mpi.py: generate loom's MPI declarations and stubs from one table.

Design: mpi/mpi_api.txt lists every function of the MPI-3.1 C binding as
its exact prototype, grouped in sections named after the feature. From it,
at build time (mpi/module.mk), this script writes:

  <include-dir>/mpi_proto.h   LOOM_MPI_API prototypes of MPI_X and PMPI_X
                              for every function (include/mpi.h includes it)
  <gen-dir>/mpi_stubs.c       a stub for every function that no hand-written
                              source implements: it voids its arguments,
                              sets its output handles to the null handle and
                              raises MPI_ERR_UNSUPPORTED_OPERATION naming the
                              call and the section's feature
  <gen-dir>/mpi_all_symbols.c a program that takes the address of every
                              MPI_X and PMPI_X and checks they link

A function is implemented when one of the given sources has the line
`#pragma weak MPI_X = PMPI_X` (every implementation has it: MPI_X is a weak
alias of PMPI_X for the profiling interface). A file is rewritten only when
its text changes, so regenerating after an edit of some mpi/*.c rebuilds
only what really changed. Python 3 standard library only.

  gen_mpi.py --table mpi/mpi_api.txt --include-dir DIR --gen-dir DIR \
             [--summary] mpi/*.c
"""

import argparse
import os
import re
import sys

# Handle types whose non-const `T *name` parameters a stub sets to the null
# handle, and the null handle of each.
NULL_HANDLES = {
    "MPI_Comm": "MPI_COMM_NULL",
    "MPI_Datatype": "MPI_DATATYPE_NULL",
    "MPI_Errhandler": "MPI_ERRHANDLER_NULL",
    "MPI_File": "MPI_FILE_NULL",
    "MPI_Group": "MPI_GROUP_NULL",
    "MPI_Info": "MPI_INFO_NULL",
    "MPI_Message": "MPI_MESSAGE_NULL",
    "MPI_Op": "MPI_OP_NULL",
    "MPI_Request": "MPI_REQUEST_NULL",
    "MPI_Win": "MPI_WIN_NULL",
    "MPI_T_enum": "MPI_T_ENUM_NULL",
    "MPI_T_cvar_handle": "MPI_T_CVAR_HANDLE_NULL",
    "MPI_T_pvar_handle": "MPI_T_PVAR_HANDLE_NULL",
    "MPI_T_pvar_session": "MPI_T_PVAR_SESSION_NULL",
}

# What a stub of a function not returning int returns after raising the
# error (its handler may return): a null handle or zero.
NON_INT_RESULTS = dict(NULL_HANDLES)
NON_INT_RESULTS.update({"double": "0.0", "MPI_Aint": "0", "MPI_Fint": "0",
                        "MPI_Count": "0", "MPI_Offset": "0"})

PROTO_RE = re.compile(r"^(?P<ret>[A-Za-z_][\w ]*?[\w*])\s*\b(?P<name>MPI_\w+)"
                      r"\((?P<params>.*)\)$")
PRAGMA_RE = re.compile(r"^\s*#\s*pragma\s+weak\s+(MPI_\w+)\s*=\s*P(MPI_\w+)\s*$")


class TableError(Exception):
    """A malformed line of the table (message names file and line)."""


class Param:
    """One parameter: its declaration, name and type without the name."""

    def __init__(self, decl):
        self.decl = decl.strip()
        m = re.match(r"^(?P<type>.*?)\b(?P<name>[A-Za-z_]\w*)\s*(?P<dims>(\[[^\]]*\])*)$",
                     self.decl)
        if self.decl == "..." or self.decl == "void" or m is None:
            self.name = None
            self.type = self.decl
            self.dims = ""
        else:
            self.name = m.group("name")
            self.type = m.group("type").strip()
            self.dims = m.group("dims")

    def out_handle(self):
        """The handle type if this is a non-const `Handle *name`, else None."""
        if self.dims:
            return None
        m = re.match(r"^(\w+)\s*\*$", self.type)
        if m and m.group(1) in NULL_HANDLES:
            return m.group(1)
        return None


class Function:
    """One table entry."""

    def __init__(self, ret, name, params, section, where):
        self.ret = ret
        self.name = name
        self.params_text = params
        self.params = [Param(p) for p in params.split(",")] if params.strip() else []
        self.section = section
        self.where = where
        for p in self.params:
            if p.name is None and p.decl not in ("...", "void"):
                raise TableError(f"{where}: cannot parse parameter '{p.decl}' of {name}")

    @property
    def pname(self):
        return "P" + self.name

    def comm_arg(self):
        """Name of the first MPI_Comm (by value) parameter, or None."""
        for p in self.params:
            if p.type == "MPI_Comm" and not p.dims:
                return p.name
        return None


def read_table(path):
    """Parse the table; returns the functions in table order."""
    funcs, seen, section = [], {}, None
    with open(path, encoding="utf-8") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.strip()
            where = f"{path}:{lineno}"
            if not line or (line.startswith("#") and not line.startswith("## ")):
                continue
            if line.startswith("## "):
                section = line[3:].strip()
                if '"' in section or "\\" in section:
                    raise TableError(f"{where}: a section name cannot hold quotes")
                continue
            m = PROTO_RE.match(line)
            if m is None:
                raise TableError(f"{where}: not a prototype '<ret> MPI_X(<params>)': {line}")
            if section is None:
                raise TableError(f"{where}: {m.group('name')} comes before any '## section'")
            name = m.group("name")
            if name in seen:
                raise TableError(f"{where}: {name} is already listed at line {seen[name]}")
            seen[name] = lineno
            funcs.append(Function(m.group("ret").strip(), name, m.group("params"),
                                  section, where))
    if not funcs:
        raise TableError(f"{path}: no functions")
    return funcs


def implemented_names(sources):
    """Names X with a `#pragma weak X = PX` line in one of @sources -> file."""
    found = {}
    for src in sources:
        with open(src, encoding="utf-8") as f:
            for line in f:
                m = PRAGMA_RE.match(line)
                if m and m.group(1) == m.group(2):
                    found.setdefault(m.group(1), src)
    return found


def write_if_changed(path, text):
    """Write @text to @path unless it already holds exactly that."""
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


GENERATED = "/* Generated by mpi/gen_mpi.py from mpi/mpi_api.txt: do not edit. */\n"


def gen_proto(funcs):
    out = [GENERATED,
           "/*\n * mpi_proto.h: the prototypes of every MPI-3.1 C function and its\n"
           " * profiling twin; included by mpi.h after its types and constants.\n */\n",
           "#ifndef LOOM_MPI_PROTO_H\n#define LOOM_MPI_PROTO_H\n"]
    section = None
    for fn in funcs:
        if fn.section != section:
            section = fn.section
            out.append(f"\n/* ---- {section} ---- */\n")
        out.append(f"LOOM_MPI_API {fn.ret} {fn.name}({fn.params_text});\n")
        out.append(f"LOOM_MPI_API {fn.ret} {fn.pname}({fn.params_text});\n")
    out.append("\n#endif /* LOOM_MPI_PROTO_H */\n")
    return "".join(out)


def gen_stub(fn):
    """C text of the stub of @fn."""
    if fn.ret != "int" and fn.ret not in NON_INT_RESULTS:
        raise TableError(f"{fn.where}: {fn.name} returns {fn.ret}, is implemented by no "
                         f"mpi/*.c source, and no stub can return a {fn.ret}: implement it")
    body = []
    for p in fn.params:
        if p.name is None:
            continue
        handle = p.out_handle()
        if handle:
            body.append(f"    if ({p.name} != NULL) {{\n"
                        f"        *{p.name} = {NULL_HANDLES[handle]};\n    }}\n")
        elif p.name != fn.comm_arg():
            body.append(f"    (void){p.name};\n")
    comm = fn.comm_arg() or "MPI_COMM_NULL"
    raise_call = f'loom_mpi_unsupported({comm}, "{fn.name}", "{fn.section}")'
    if fn.ret == "int":
        body.append(f"    return {raise_call};\n")
    else:
        body.append(f"    (void){raise_call};\n")
        body.append(f"    return {NON_INT_RESULTS[fn.ret]};\n")
    return (f"#pragma weak {fn.name} = {fn.pname}\n"
            f"{fn.ret} {fn.pname}({fn.params_text})\n{{\n" + "".join(body) + "}\n")


def gen_stubs(funcs, implemented):
    out = [GENERATED,
           "/*\n * mpi_stubs.c: every MPI-3.1 function that no hand-written mpi/ source implements\n"
           " * (no `#pragma weak MPI_X = PMPI_X` line): it links, sets its output\n"
           " * handles to the null handle and raises MPI_ERR_UNSUPPORTED_OPERATION\n"
           " * naming the call and the missing feature (its table section).\n */\n",
           '#include "mpi_int.h"\n#include "mpi_stub.h"\n\n#include <stddef.h>\n']
    for fn in funcs:
        if fn.name not in implemented:
            out.append("\n" + gen_stub(fn))
    return "".join(out)


def gen_all_symbols(funcs):
    out = [GENERATED,
           "/*\n * mpi_all_symbols.c: takes the address of MPI_X and PMPI_X for every\n"
           " * function of the table and checks each is linked, that MPI_X is PMPI_X\n"
           " * (a weak alias: nothing else is linked in) and that no two names share\n"
           " * a function. Compiles as C and as C++. Prints \"N functions linked\".\n */\n",
           "#include <mpi.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n\n",
           "typedef void (*loom_any_fn)(void);\n\n",
           "struct loom_sym {\n    const char *name;\n    loom_any_fn mpi, pmpi;\n};\n\n",
           "struct loom_addr {\n    uintptr_t addr;\n    const char *name;\n};\n\n",
           "static const struct loom_sym loom_syms[] = {\n"]
    for fn in funcs:
        out.append(f'    {{ "{fn.name}", (loom_any_fn){fn.name}, (loom_any_fn){fn.pname} }},\n')
    out.append("};\n\n")
    out.append("""static int loom_cmp(const void *a, const void *b)
{
    const struct loom_addr *x = (const struct loom_addr *)a;
    const struct loom_addr *y = (const struct loom_addr *)b;
    return x->addr < y->addr ? -1 : x->addr > y->addr ? 1 : 0;
}

int main(void)
{
    enum { N = sizeof(loom_syms) / sizeof(loom_syms[0]) };
    static struct loom_addr sorted[N];
    int bad = 0;
    size_t i;

    for (i = 0; i < N; i++) {
        if (loom_syms[i].mpi == NULL || loom_syms[i].pmpi == NULL) {
            printf("%s: not linked\\n", loom_syms[i].name);
            bad++;
        } else if (loom_syms[i].mpi != loom_syms[i].pmpi) {
            printf("%s is not P%s\\n", loom_syms[i].name, loom_syms[i].name);
            bad++;
        }
        sorted[i].addr = (uintptr_t)loom_syms[i].mpi;
        sorted[i].name = loom_syms[i].name;
    }
    qsort(sorted, N, sizeof(sorted[0]), loom_cmp);
    for (i = 1; i < N; i++) {
        if (sorted[i].addr == sorted[i - 1].addr) {
            printf("%s and %s are one function\\n", sorted[i - 1].name, sorted[i].name);
            bad++;
        }
    }
    if (bad != 0) {
        printf("%d problems in %d functions\\n", bad, (int)N);
        return 1;
    }
    printf("%d functions linked\\n", (int)N);
    return 0;
}
""")
    return "".join(out)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--table", required=True)
    ap.add_argument("--include-dir", required=True, help="where mpi_proto.h goes")
    ap.add_argument("--gen-dir", required=True, help="where the .c files go")
    ap.add_argument("--summary", action="store_true",
                    help="print the number of functions, implemented and stubbed")
    ap.add_argument("sources", nargs="*", help="the hand-written mpi/*.c")
    args = ap.parse_args(argv)
    try:
        funcs = read_table(args.table)
        table_names = {fn.name for fn in funcs}
        implemented = implemented_names(args.sources)
        for name, src in sorted(implemented.items()):
            if name not in table_names:
                raise TableError(f"{src}: implements {name}, which {args.table} does not "
                                 "list: add its prototype to the table")
        stubs = gen_stubs(funcs, implemented)
    except (TableError, OSError) as e:
        print(f"gen_mpi.py: {e}", file=sys.stderr)
        return 1
    write_if_changed(os.path.join(args.include_dir, "mpi_proto.h"), gen_proto(funcs))
    write_if_changed(os.path.join(args.gen_dir, "mpi_stubs.c"), stubs)
    write_if_changed(os.path.join(args.gen_dir, "mpi_all_symbols.c"), gen_all_symbols(funcs))
    if args.summary:
        n_impl = sum(1 for fn in funcs if fn.name in implemented)
        print(f"{len(funcs)} functions: {n_impl} implemented, {len(funcs) - n_impl} stubbed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
