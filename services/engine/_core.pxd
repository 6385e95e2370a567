# The C layout of _core.py's Position: its fields and C-level methods, declared once here.
#
# Cython reads this file when it compiles _core.py (an augmenting .pxd: the fields live only
# here, and each C method's signature must match its @cython.cfunc definition in _core.py), and
# other compiled modules cimport it to reach a Position's state without Python calls (the AI's
# playout policies, ai/_playout.py). Run as plain Python, _core.py never reads this file.
#
# setup.py finds it as boxedin/engine/_core.pxd (see CYTHON_INCLUDE there): change a field or a
# signature here and every module that cimports it is compiled again.

cdef class Position:
    # Geometry, shared between every position of one board.
    cdef object geo
    cdef int e_count
    cdef int s_count
    cdef int b_count
    cdef int n_edge_sq
    cdef int[::1] on_start
    cdef int[::1] on_edge
    cdef int[::1] in_start
    cdef int[::1] inside
    cdef int[::1] ar_start
    cdef int[::1] around
    cdef int[::1] bx_start
    cdef int[::1] boxes
    cdef int[::1] size
    # Rules.
    cdef int rule
    cdef int die  # 0 for no die
    cdef bint free_capture
    cdef bint owes_line
    cdef bint can_block
    cdef bint track_cover
    # State and its segment offsets.
    cdef object state
    cdef int[::1] st
    cdef int o_drawn
    cdef int o_missing
    cdef int o_status
    cdef int o_owner
    cdef int o_points
    cdef int o_cover
    cdef int o_holder
    # Journal of (index, old value) pairs and the journal length at the start of each action.
    cdef object journal
    cdef int[::1] jr
    cdef int jlen
    cdef int jcap
    cdef bint journaling
    cdef list marks
    # Events of the last draw: (kind, square, player, points) flattened, when recording.
    cdef bint recording
    cdef list events
    cdef int[::1] done  # squares completed by the edge being drawn
    cdef int[::1] open_list  # a playout's open edges (scratch, shared by copies)

    cdef void _bind(self, object geo, int rule, int die, bint free_capture, bint owes_line)
    cdef void _reset_journal(self)
    cdef void _share(self, Position src)
    # Writing state (journaled while ``journaling``).
    cdef inline void _set(self, int i, int value)
    cdef void _grow_journal(self)
    cdef inline void _add(self, int i, int delta)
    cdef void _begin_action(self)
    # The rules: the parts of an action, without its journal mark.
    cdef int _roll(self, int face)
    cdef void _pass_turn(self)
    cdef int _draw(self, int edge)
    cdef int _resolve(self, int q, int p)
    cdef void _capture(self, int q, int p, int points)
    cdef int _block(self, int q, int p)
    cdef void _remove(self, int t)
    cdef void _take_over(self, int t, int p)
    cdef bint _capturable(self, int q)
    cdef bint _edge_dead(self, int edge)
    cdef bint _over(self)
