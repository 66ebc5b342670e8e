"""The ask loop's modes, knobs and tuning constants: what settings and commands read
without loading the loop."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from graphmind.ask.retrieve import FirstList, RetrieveOptions
from graphmind.memory.session import MemoryOptions

Mode = Literal["loop", "naive", "judged"]
# how a round decides the next hop and when to stop (``graphmind.ask.policies``)
PolicyName = Literal["rules", "reflect"]
# deep: the evidence loop; broad: the community layer (``graphmind.ask.broad``); auto: by
# the question's form
Scope = Literal["auto", "deep", "broad"]


@dataclass
class AskOptions:
    """The loop's knobs."""

    mode: Mode = "loop"
    max_rounds: int = 3
    checked_rounds: int = 1  # rounds whose answer is checked; later ones go on only for a hop
    # "rules": hops found in the question's words (small local models); "reflect": the model
    # names the next hop (capable endpoint models)
    policy: PolicyName = "rules"
    k: int = 10  # passages round 1 shows first (naive's vector top-k, or the graph walk's)
    extra: int = 0  # round 1: more candidates from the other retrievers, after those k
    first: FirstList = "graph"  # the list a round shows first (measured best): ``first_round``
    follow_up: int = 6  # later rounds: new candidates beside the cited ones
    context_tokens: int = 2500
    expand: bool = True
    evolve_graph: bool = False  # extract triplets from cited chunks at question time
    record: bool = True  # write the decision back (off: a probe that leaves the memory as is)
    explain: bool = True  # the full answer beside the short one (one more call; off: --short)
    # "Which came out first, A or B?", "Are A and B from the same country?", "Who lived
    # longer?": each option asked as a question of its own, the answers compared in code
    compare: bool = True
    scope: Scope = "auto"  # a broad question ("the main themes ...") from the communities
    broad_communities: int = 4  # communities a broad answer reads (one map call each)
    broad_passages: int = 2  # passages of each community the map call reads
    broad_nearest: int = 2  # and of naive's k nearest that no community read (one more call)
    broad_points: int = 10  # best points the reduce call writes the answer from
    retrieve: RetrieveOptions = field(default_factory=RetrieveOptions)
    memory: MemoryOptions = field(default_factory=MemoryOptions)


# the output caps of the LLM calls (``read``, ``check``, the judged baseline's)
ANSWER_MAX_TOKENS = 96  # a short answer and a few passage numbers
CHECK_MAX_TOKENS = 128  # a flag, one fact, one query
REFLECT_MAX_TOKENS = 192  # a flag, the next question, one fact, one query
SAME_MAX_TOKENS = 16  # {"same": true}
EXPLAIN_MAX_TOKENS = 320  # the full answer: up to four sentences with their citations
EXPLAIN_MORE = 3  # passages other rounds used, shown to the full answer beside its own
VERDICT_TOKENS = 40  # one judged verdict, its reason at most JUDGED_REASON_CHARS
# retrieval (``gather``): the fusion, and a next hop's passages about its bridge
FUSE_ALL = 10_000  # fuse every ranked chunk: the cut to the candidates comes after
BRIDGE_PASSAGES = 2  # a next hop's round: passages about the bridge, shown first
BRIDGE_POOL = 5  # full-text hits for the bridge's name read for them
# the graph expansion (``expand``) and the evolving sub-graph (``evolve_graph``)
EXPAND_RELATIONS = 3  # relations (best matches for the gap) whose chunks the expansion adds
EXPAND_POOL = 200  # relations of the anchors' entities scored against the gap
RELATION_TRIPLETS = 3  # a relation is scored by the best of its first triplets' vectors
EXPAND_ENTITIES = 10  # anchor entity names added to the expansion's target text
EXPAND_ANCHORS = 3  # without used evidence, the last round's top candidates anchor it
EVOLVE_CHUNKS = 3  # used chunks extracted at question time, per round
