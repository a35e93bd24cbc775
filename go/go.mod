module aakaar

go 1.19
