"""The ``expert`` plays the turn search the Harmonies strategies share (issue 41): its token plan
and its turn end are ``strategies.harmonies.planning``'s templates specialised with the expert's
own steps, not copies of them. That it plays the very games of its own former loop is checked
by ``test_expert_identity``."""

from __future__ import annotations

from strategies.harmonies import expert
from strategies.harmonies.greedy import greedy_cube_phase
from strategies.harmonies.planning import token_steps, turn_end
from strategies.harmonies.valued import valued_first_value_table


def python_function(function):
    """The plain function behind a compiled one (itself when compilation is off)."""
    return getattr(function, "py_func", function)


def test_the_expert_token_plan_is_the_shared_token_steps_with_the_experts_steps():
    plan = python_function(expert.expert_token_steps)
    assert plan.__code__ is token_steps.__code__
    steps = plan.__globals__
    assert steps["plan_start"] is expert.expert_plan_start
    assert steps["step_start"] is expert.expert_step_start
    assert steps["first_value_table"] is valued_first_value_table
    assert steps["first_values_reusable"] is expert.expert_first_values_reusable
    assert steps["first_value_holds"] is expert.expert_first_value_holds
    assert steps["token_value"] is expert.expert_token_step_value
    assert steps["token_planned"] is expert.expert_token_planned


def test_the_expert_turn_end_is_the_shared_turn_end_with_its_card_choice():
    end = python_function(expert.expert_turn_end)
    assert end.__code__ is turn_end.__code__
    assert end.__globals__["card_choice"] is expert.expert_card_choice
    assert end.__globals__["place_cubes"] is greedy_cube_phase


def test_the_expert_loop_of_its_own_is_gone():
    assert not hasattr(expert, "expert_steps")
