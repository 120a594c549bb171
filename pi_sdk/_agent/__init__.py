"""Layer 5, the agent: pi-agent-core's loop, tool execution, ``Agent`` and session files.

Custom message types and ``convert_to_llm``, tools from typed functions, one assistant message's
tool calls (hooks, parallel or sequential), the stateless loop, the stateful ``Agent``, JSON-lines
sessions and pi-coding-agent session files. A consumer of ``stream()`` like any user. Imports
layers 0-4.
"""
