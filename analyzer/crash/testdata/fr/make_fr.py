# Generates the flight-recorder fixtures of this folder and ../fr_json.
# Layout of PyTorch's FlightRecorder dump (docs "Flight Recorder File
# Formats", torch/csrc/distributed/c10d/FlightRecorder): version, pg_config,
# pg_status {last_enqueued/started/completed_collective}, entries[]. A 4-rank
# job in which rank 1 never enqueued all_reduce #58. Pickled with protocol 2
# (as torch's C++ pickler writes) for ranks 0-1 and protocol 4 for ranks 2-3;
# JSON (pg_status values as strings, as _dump_nccl_trace_json writes them).
import json, pickle

def dump(rank, enq, comp):
    entries = []
    for seq in range(enq - 2, enq + 1):
        entries.append({
            "frames": [{"name": "all_reduce", "filename": "torch/distributed/distributed_c10d.py", "line": 2501}],
            "record_id": seq, "pg_id": 0, "process_group": ("0", "default_pg"),
            "collective_seq_id": seq, "p2p_seq_id": 0, "op_id": seq,
            "profiling_name": "nccl:all_reduce", "time_created_ns": 1700000000000000000 + seq,
            "input_sizes": [[4096, 4096]], "input_dtypes": ["BFloat16"],
            "output_sizes": [[4096, 4096]], "output_dtypes": ["BFloat16"],
            "state": "completed" if seq <= comp else "scheduled",
            "time_discovered_started_ns": None, "time_discovered_completed_ns": None,
            "retired": seq <= comp, "timeout_ms": 600000, "is_p2p": False,
        })
    return {
        "version": "2.5",
        "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": "[0, 1, 2, 3]"}},
        "pg_status": {"0": {"last_enqueued_collective": enq, "last_started_collective": -1, "last_completed_collective": comp}},
        "entries": entries,
    }

state = {0: (58, 57), 1: (57, 57), 2: (58, 57), 3: (58, 57)}
for r, (e, c) in state.items():
    with open(f"fr_dump_rank_{r}", "wb") as f:
        pickle.dump(dump(r, e, c), f, protocol=2 if r < 2 else 4)
    d = dump(r, e, c)
    d["pg_status"]["0"] = {k: str(v) for k, v in d["pg_status"]["0"].items()}
    with open(f"../fr_json/fr_dump_rank_{r}.json", "w") as f:
        json.dump(d, f, indent=1)
