"""A faithful Python model of libstdc++'s std::sort (introsort + final insertion sort).

XLA:CPU sorts with std::sort when a sort is not `is_stable`, and the order it leaves equal
elements in is whatever that algorithm produces. Replaying the same sequence of
comparisons and swaps reproduces XLA's result exactly (checked against XLA's outputs for
sorts with tied keys), so the interpreter uses this model for the rows of an unstable
sort that contain ties; rows without ties have only one sorted order.

libstdc++'s "unguarded" loops find their stop only if `less` is a strict weak order; here
every loop is also bounded by its range (the LLVM backend's lower/std_sort.py has the same
bounds): the partition's forward scan stops at the range's last element, its backward scan
at the pivot, and the final insertion's backward walk at the start of the list. The bounds
only act where libstdc++ would leave the range: never for an asymmetric, irreflexive
`less` in the partition (IEEE `<` even with NaNs: the median-of-3 leaves a stop inside the
range), and for the walk no input was found (McIlroy's adversary with NaNs placed in it).
Unbounded, a `less` that is no order at all (always true) ran this model off its list,
and Python's negative indices let a walk wrap round silently.
"""
from __future__ import annotations

from collections.abc import Callable

Less = Callable[[int, int], bool]

_THRESHOLD = 16  # libstdc++ _S_threshold


def std_sort(items: list[int], less: Less) -> list[int]:
    """Sort `items` in place exactly as libstdc++'s std::sort(first, last, less) would."""
    n = len(items)
    if n > 1:
        _introsort(items, 0, n, 2 * (n.bit_length() - 1), less)
        _final_insertion_sort(items, 0, n, less)
    return items


def _introsort(a: list[int], first: int, last: int, depth: int, less: Less) -> None:
    while last - first > _THRESHOLD:
        if depth == 0:
            _heap_sort(a, first, last, less)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, less)
        _introsort(a, cut, last, depth, less)
        last = cut


def _swap(a: list[int], i: int, j: int) -> None:
    a[i], a[j] = a[j], a[i]


def _move_median_to_first(a: list[int], result: int, x: int, y: int, z: int, less: Less) -> None:
    if less(a[x], a[y]):
        if less(a[y], a[z]):
            _swap(a, result, y)
        elif less(a[x], a[z]):
            _swap(a, result, z)
        else:
            _swap(a, result, x)
    elif less(a[x], a[z]):
        _swap(a, result, x)
    elif less(a[y], a[z]):
        _swap(a, result, z)
    else:
        _swap(a, result, y)


def _partition_pivot(a: list[int], first: int, last: int, less: Less) -> int:
    mid = first + (last - first) // 2
    _move_median_to_first(a, first, first + 1, mid, last - 1, less)
    return _unguarded_partition(a, first + 1, last, first, less)


def _unguarded_partition(a: list[int], first: int, last: int, pivot: int, less: Less) -> int:
    end = last - 1
    while True:
        while first < end and less(a[first], a[pivot]):
            first += 1
        last -= 1
        while last > pivot and less(a[pivot], a[last]):
            last -= 1
        if not first < last:
            return first
        _swap(a, first, last)
        first += 1


def _insertion_sort(a: list[int], first: int, last: int, less: Less) -> None:
    for i in range(first + 1, last):
        if less(a[i], a[first]):
            value = a[i]
            a[first + 1:i + 1] = a[first:i]
            a[first] = value
        else:
            _unguarded_linear_insert(a, i, less)


def _unguarded_linear_insert(a: list[int], last: int, less: Less) -> None:
    value = a[last]
    nxt = last - 1
    while nxt >= 0 and less(value, a[nxt]):
        a[last] = a[nxt]
        last = nxt
        nxt -= 1
    a[last] = value


def _final_insertion_sort(a: list[int], first: int, last: int, less: Less) -> None:
    if last - first > _THRESHOLD:
        _insertion_sort(a, first, first + _THRESHOLD, less)
        for i in range(first + _THRESHOLD, last):
            _unguarded_linear_insert(a, i, less)
    else:
        _insertion_sort(a, first, last, less)


def _adjust_heap(a: list[int], first: int, hole: int, length: int, value: int, less: Less) -> None:
    top = child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and less(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def _heap_sort(a: list[int], first: int, last: int, less: Less) -> None:
    """std::__partial_sort(first, last, last): make_heap then sort_heap."""
    length = last - first
    if length >= 2:
        for parent in range((length - 2) // 2, -1, -1):
            _adjust_heap(a, first, parent, length, a[first + parent], less)
    while last - first > 1:
        last -= 1
        value = a[last]
        a[last] = a[first]
        _adjust_heap(a, first, 0, last - first, value, less)
