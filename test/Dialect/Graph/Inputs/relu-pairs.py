"""Writes a graph function of N rounds of relu, relu, neg on a tensor<4xf32>: N matches of
relu_of_relu along one chain, to search in parts."""
import sys

rounds = int(sys.argv[1])
lines = ["func.func @relu_pairs(%x: tensor<4xf32>) -> tensor<4xf32> {"]
value = "%x"
for i in range(rounds):
    for op, name in (("relu", "a"), ("relu", "b"), ("neg", "n")):
        lines.append(f"  %{name}{i} = graph.{op} {value} : tensor<4xf32>")
        value = f"%{name}{i}"
lines.append(f"  return {value} : tensor<4xf32>")
lines.append("}")
print("\n".join(lines))
