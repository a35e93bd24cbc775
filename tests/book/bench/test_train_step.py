"""The training step that `python -m aakaar.book.bench.train_step` races against
PyTorch must train like PyTorch before its time means anything: same weights,
same batches, SGD with momentum 0.9 by aakaar.optim.SGD and in both hand-written
update forms (the two-pass moving average and torch's three-pass foreach form).
No timing is asserted."""

from __future__ import annotations

import numpy as np
import pytest

from aakaar.book.bench import train_step as ts

torch = pytest.importorskip("torch")  # the reference: skips the module without the torch extra


def test_every_update_form_follows_torch_fused_sgd():
    if ts.EMNIST_DIR is None:
        pytest.skip("no EMNIST files (set AAKAAR_DATA; see aakaar/data/emnist.py)")
    batches, _ = ts.load_batches(64, str(ts.EMNIST_DIR))  # real images: the loss really falls
    weights = ts.init_weights()
    th = ts.TorchTrainer(weights, batches)
    opt = ts.AakaarTrainer(weights, batches)
    ema = ts.AakaarTrainer(weights, batches, update="ema")
    foreach = ts.AakaarTrainer(weights, batches, update="foreach")
    losses = ts.check_trajectories({"torch": th.step, "optim": opt.step, "ema": ema.step, "foreach": foreach.step},
                                   steps=40)
    assert np.mean(losses["torch"][-8:]) < np.mean(losses["torch"][:8]) - 0.05  # it trains: the loss falls
    # and the parameters, not only the losses, are torch's after 40 steps
    for trainer in (opt, ema):
        for p_ak, p_ref in zip(trainer.params, th.model.parameters()):
            np.testing.assert_allclose(p_ak.numpy(), p_ref.detach().numpy(), rtol=1e-4, atol=1e-5)
    # the moving average is torch's momentum buffer scaled by (1 - momentum)
    for v, p_ref in zip(ema.velocity, th.model.parameters()):
        buf = th.opt.state[p_ref]["momentum_buffer"].numpy()
        np.testing.assert_allclose(v.numpy() / (1 - ts.MOMENTUM), buf, rtol=1e-3, atol=1e-5)


def test_a_wrong_update_is_caught_before_timing():
    batches, _ = ts.load_batches(64, "random")
    weights = ts.init_weights()
    th, ak_tr = ts.TorchTrainer(weights, batches), ts.AakaarTrainer(weights, batches, update="ema")
    original = ak_tr._update_ema

    def no_momentum() -> None:  # forgets the momentum: must not pass as SGD(momentum=0.9)
        original()
        for v in ak_tr.velocity:
            v.zero_()

    ak_tr.update = no_momentum
    try:
        ts.check_trajectories({"torch": th.step, "aakaar": ak_tr.step}, steps=5)
    except AssertionError as e:
        assert "losses differ" in str(e)
    else:
        raise AssertionError("a step without momentum passed the trajectory check")


def test_run_writes_the_record():
    rec = ts.run(threads=1, rounds=3, data="random", check_steps=2, target_s=0.0005, warmup=1)
    assert rec["model"] == "784-256-128-47" and rec["batch"] == 64
    assert set(rec["seconds"]) == {"aakaar", "torch"} and all(t > 0 for t in rec["seconds"].values())
    assert rec["ratio_vs_torch"]["aakaar"] == rec["seconds"]["aakaar"] / rec["seconds"]["torch"]


def test_run_at_several_thread_counts_reports_each_and_the_fastest():
    rec = ts.run(threads=[1, 2], rounds=2, data="random", check_steps=2, target_s=0.0005, warmup=1)
    names = {"aakaar, 1 thread", "torch, 1 thread", "aakaar, 2 threads", "torch, 2 threads"}
    assert set(rec["seconds"]) == names and rec["threads"] == [1, 2]
    assert set(rec["check_losses"]) == names
    s = rec["seconds"]
    assert rec["ratio_vs_torch"] == {"aakaar, 1 thread": s["aakaar, 1 thread"] / s["torch, 1 thread"],
                                     "aakaar, 2 threads": s["aakaar, 2 threads"] / s["torch, 2 threads"]}
    for lib in ("aakaar", "torch"):
        n = rec["best"][lib]["threads"]
        assert rec["best"][lib]["seconds"] == min(s[f"{lib}, 1 thread"], s[f"{lib}, 2 threads"])
        assert rec["best"][lib]["seconds"] == s[f"{lib}, {n} thread" + ("" if n == 1 else "s")]
    assert rec["best"]["ratio"] == rec["best"]["aakaar"]["seconds"] / rec["best"]["torch"]["seconds"]


@pytest.mark.parametrize("bad", ["0", "1,x", "", "-1,2"])
def test_bad_thread_counts_are_refused(bad, capsys):
    with pytest.raises(SystemExit) as e:
        ts.main([f"--threads={bad}", "--data", "random"])
    assert e.value.code == 2 and "thread counts" in capsys.readouterr().err
    with pytest.raises(ValueError, match="threads must be positive"):
        ts.run(threads=[0])


def test_ablations_train_like_torch():
    rec = ts.run(threads=2, rounds=2, ablate=True, data="random", check_steps=2, target_s=0.0005, warmup=1)
    assert {"aakaar, no allocator cache", "aakaar, no split among awake workers"} <= set(rec["seconds"])


def test_a_switched_off_fast_path_is_switched_on_again_even_after_an_error():
    calls = []

    def failing_step():
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        ts._with_switch_off(failing_step, calls.append)()
    assert calls == [False, True]
