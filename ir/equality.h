// Structural equality and hashing of IR: two trees are equal when they have the same node kinds,
// types, constants and shape, regardless of which node objects they are made of.
//
// Variables and buffers compare by identity (two distinct Vars named "i" differ), unless
// `map_bound` is set: then the variables a tree BINDS (For and Let/LetStmt variables, reduction
// axes) and the buffers it allocates are matched by position, so two lowerings of the same
// schedule, built with fresh variables, compare equal (alpha-equivalence). Free variables and
// buffers still compare by identity, and the matching is one-to-one.
//
// Tensor operations (TensorRead, Provide, Realize) compare by the identity of the operation.
// Equal trees have equal hashes in the same mode.
#pragma once
#include <cstddef>

#include "ir/expr.h"
#include "ir/stmt.h"

namespace tessel {

bool structural_equal(const Expr& a, const Expr& b, bool map_bound = false);
bool structural_equal(const Stmt& a, const Stmt& b, bool map_bound = false);
size_t structural_hash(const Expr& e, bool map_bound = false);
size_t structural_hash(const Stmt& s, bool map_bound = false);

// Lowered functions are equal when their argument types and shapes match in order and their
// bodies are equal with bound variables and argument buffers matched by position; the function
// names are ignored. For deduplicating candidate programs.
bool structural_equal(const LoweredFunc& a, const LoweredFunc& b);
size_t structural_hash(const LoweredFunc& f);

}  // namespace tessel
