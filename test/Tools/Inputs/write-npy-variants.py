"""Writes .npy files for test/Tools/hostile-input-errors.test into the folder given: headers that
NumPy refuses, and valid files in the spellings NumPy accepts (Fortran order, big-endian, version
3.0, spaced and double-quoted), each holding the 2x3 matrix [[-1, 2, -3], [4, -5, 6]]."""
import struct
import sys

MATRIX = [[-1.0, 2.0, -3.0], [4.0, -5.0, 6.0]]
C_ORDER = [value for row in MATRIX for value in row]
FORTRAN_ORDER = [MATRIX[i][j] for j in range(3) for i in range(2)]


def npy(header, data, version=(1, 0)):
    length = struct.pack("<H" if version[0] == 1 else "<I", len(header))
    return b"\x93NUMPY" + bytes(version) + length + header.encode() + data


def floats(values, fmt="<f"):
    return b"".join(struct.pack(fmt, value) for value in values)


FILES = {
    # Refused by NumPy, so refused here.
    "version-1-1": npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n",
                       floats(C_ORDER), (1, 1)),
    "fortran-order-1": npy("{'descr': '<f4', 'fortran_order': 1, 'shape': (2, 3), }\n",
                           floats(C_ORDER)),
    "fortran-order-none": npy("{'descr': '<f4', 'fortran_order': None, 'shape': (2, 3), }\n",
                              floats(C_ORDER)),
    "fortran-order-x": npy("{'descr': '<f4', 'fortran_order': 'x', 'shape': (2, 3), }\n",
                           floats(C_ORDER)),
    "broken-punctuation": npy("{'descr': '<f4'; 'fortran_order': False, 'shape': (2, 3), }\n",
                              floats(C_ORDER)),
    # Accepted by NumPy, so read here, all as the same matrix.
    "c-order": npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n",
                   floats(C_ORDER)),
    "fortran-order": npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }\n",
                         floats(FORTRAN_ORDER)),
    "big-endian": npy("{'descr': '>f8', 'fortran_order': False, 'shape': (2, 3), }\n",
                      floats(C_ORDER, ">d")),
    "version-3-spaced": npy('{ "shape" : ( 2 , 3 , ) , "descr" : "<f4" , '
                            '"fortran_order" : False }', floats(C_ORDER), (3, 0)),
}

for name, content in FILES.items():
    with open(f"{sys.argv[1]}/{name}.npy", "wb") as file:
        file.write(content)
